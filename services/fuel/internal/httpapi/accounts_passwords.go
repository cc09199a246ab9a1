package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
)

// The password routes: the policy of their attempts (per username and
// per client address, counted across replicas) is accounts.Logins.

type loginRequest struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
}

type loginResponse struct {
	Token     string       `json:"token"`
	ExpiresAt string       `json:"expires_at"`
	User      userResponse `json:"user"`
}

// login checks a username and password (accounts.Logins.Login).
func (a *accountRoutes) login(c *gin.Context) {
	var req loginRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	name, nameErr := requiredUsername(req.Username)
	var passwordErr error
	if req.Password == nil || *req.Password == "" {
		passwordErr = apperr.Invalid("password", "is required")
	}
	if err := apperr.Join(nameErr, passwordErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	s, err := a.logins.Login(c.Request.Context(), c.ClientIP(), name, *req.Password)
	if err != nil {
		ginx.Fail(c, accountsError(err))
		return
	}
	c.JSON(http.StatusOK, loginResponse{
		Token: s.Secret, ExpiresAt: formatTime(s.Token.End()),
		User: toUserResponse(s.User),
	})
}

type passwordRequest struct {
	CurrentPassword *string `json:"current_password"`
	NewPassword     *string `json:"new_password"`
	// RevokeTokens (default true) also revokes every personal access token
	// of the user.
	RevokeTokens *bool `json:"revoke_tokens"`
}

// changePassword sets the caller's password and ends the caller's other
// sessions and, unless revoke_tokens is false, every personal access
// token (accounts.Logins.ChangePassword).
func (a *accountRoutes) changePassword(c *gin.Context) {
	var req passwordRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	var currentErr, newErr error
	if req.CurrentPassword == nil {
		currentErr = apperr.Invalid("current_password", "is required")
	}
	if req.NewPassword == nil {
		newErr = apperr.Invalid("new_password", "is required")
	} else if err := auth.CheckPassword(*req.NewPassword); err != nil {
		newErr = apperr.Invalid("new_password", "%s", err.Error())
	}
	if err := apperr.Join(currentErr, newErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	id, _ := auth.FromContext(ctx)
	revokeTokens := req.RevokeTokens == nil || *req.RevokeTokens
	err := a.logins.ChangePassword(ctx, c.ClientIP(), id, *req.CurrentPassword, *req.NewPassword, revokeTokens)
	a.tokens.Purge()
	if err != nil {
		ginx.Fail(c, accountsError(err))
		return
	}
	c.Status(http.StatusNoContent)
}
