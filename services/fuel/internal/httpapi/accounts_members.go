package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

type memberResponse struct {
	UserID    uint64 `json:"user_id"`
	Username  string `json:"username"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
}

func toMemberResponse(m fuel.Member) memberResponse {
	return memberResponse{UserID: m.UserID, Username: m.Username, Role: string(m.Role), CreatedAt: formatTime(m.CreatedAt)}
}

// listMembers: the owner and the members see who a vehicle is shared with.
func (a *accountRoutes) listMembers(c *gin.Context) {
	vid, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	ms, err := a.opts.Accounts.Members(c.Request.Context(), vid)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]memberResponse, len(ms))
	for i, m := range ms {
		out[i] = toMemberResponse(m)
	}
	c.JSON(http.StatusOK, out)
}

type memberRequest struct {
	Role *string `json:"role"`
}

// setMember shares the vehicle with a user as viewer or editor (the owner
// only), or changes the role.
func (a *accountRoutes) setMember(c *gin.Context) {
	vid, uid, err := memberPath(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req memberRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	role, err := memberRole(req.Role)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	m, err := a.opts.Accounts.SetMember(c.Request.Context(), vid, uid, role)
	if errors.Is(err, accounts.ErrUserNotFound) {
		ginx.Fail(c, apperr.New(apperr.NotFound, "user %d not found", uid))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toMemberResponse(m))
}

type memberByNameRequest struct {
	Username *string `json:"username"`
	Role     *string `json:"role"`
}

// addMember shares the vehicle with the user of that name (the owner only):
// an owner knows the people they share with by name, not by id. An unknown
// name is reported only after SetMember's ownership check, so only the
// vehicle's owner learns whether a name exists.
func (a *accountRoutes) addMember(c *gin.Context) {
	vid, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req memberByNameRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	name, nameErr := requiredUsername(req.Username)
	role, roleErr := memberRole(req.Role)
	if err := apperr.Join(nameErr, roleErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	var uid uint64 // 0, no user: SetMember answers ErrUserNotFound once the caller is known to own the vehicle
	u, err := a.opts.Accounts.UserByUsername(ctx, name)
	if err == nil {
		uid = u.ID
	} else if !errors.Is(err, accounts.ErrUserNotFound) {
		ginx.Fail(c, err)
		return
	}
	m, err := a.opts.Accounts.SetMember(ctx, vid, uid, role)
	var invalid *apperr.Error
	switch {
	case errors.Is(err, accounts.ErrUserNotFound):
		ginx.Fail(c, apperr.New(apperr.NotFound, "username: no user is named %q", name))
	case errors.As(err, &invalid) && invalid.Field == "user_id":
		ginx.Fail(c, apperr.Invalid("username", "is the vehicle's owner"))
	case err != nil:
		ginx.Fail(c, err)
	default:
		c.JSON(http.StatusOK, toMemberResponse(m))
	}
}

// memberRole reads a member request's role, which is required.
func memberRole(role *string) (fuel.Role, error) {
	if role == nil {
		return "", apperr.Invalid("role", "is required: viewer or editor")
	}
	return fuel.ParseMemberRole("role", *role)
}

// removeMember ends a share (the owner only).
func (a *accountRoutes) removeMember(c *gin.Context) {
	vid, uid, err := memberPath(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.opts.Accounts.RemoveMember(c.Request.Context(), vid, uid); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// memberPath reads the :id (vehicle) and :user_id path parameters.
func memberPath(c *gin.Context) (vehicleID, userID uint64, err error) {
	if vehicleID, err = pathID(c); err != nil {
		return 0, 0, err
	}
	userID, err = parseID("user_id", c.Param("user_id"))
	return vehicleID, userID, err
}
