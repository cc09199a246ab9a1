package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

type createUserRequest struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	IsAdmin  bool    `json:"is_admin"`
}

func (a *accountRoutes) createUser(c *gin.Context) {
	var req createUserRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	var nameErr, passwordErr error
	if req.Username == nil || !accounts.UsernamePattern.MatchString(strings.TrimSpace(*req.Username)) {
		nameErr = apperr.Invalid("username", "must be 1 to 64 letters, digits or . _ @ -")
	}
	if req.Password == nil {
		passwordErr = apperr.Invalid("password", "is required")
	} else if err := auth.CheckPassword(*req.Password); err != nil {
		passwordErr = apperr.Invalid("password", "%s", err.Error())
	}
	if err := apperr.Join(nameErr, passwordErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	hash, err := a.passwords.Hash(c.Request.Context(), *req.Password)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := a.opts.Accounts.CreateUser(c.Request.Context(), *req.Username, hash, req.IsAdmin)
	if errors.Is(err, accounts.ErrUsernameTaken) {
		ginx.Fail(c, apperr.New(apperr.Conflict, "username: %q is taken", strings.TrimSpace(*req.Username)))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, toUserResponse(u))
}

func (a *accountRoutes) listUsers(c *gin.Context) {
	us, err := a.opts.Accounts.Users(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]userResponse, len(us))
	for i, u := range us {
		out[i] = toUserResponse(u)
	}
	c.JSON(http.StatusOK, out)
}

func (a *accountRoutes) deleteUser(c *gin.Context) {
	uid, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	id, _ := auth.FromContext(c.Request.Context())
	if uid == id.UserID {
		ginx.Fail(c, apperr.Invalid("id", "an administrator cannot delete their own account"))
		return
	}
	err = a.opts.Accounts.DeleteUser(c.Request.Context(), uid)
	a.tokens.Purge()
	if errors.Is(err, accounts.ErrUserNotFound) {
		ginx.Fail(c, apperr.New(apperr.NotFound, "user %d not found", uid))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
