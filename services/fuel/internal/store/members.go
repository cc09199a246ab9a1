package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Members returns the users a vehicle is shared with, by user id. The
// owner and the members may list them; ErrVehicleNotFound for anyone else.
func (q *queries) Members(ctx context.Context, vehicleID uint64) ([]fuel.Member, error) {
	out := []fuel.Member{}
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := q.vehicle(ctx, tx, vehicleID, false); err != nil {
			return err
		}
		rows, err := tx.Raw("SELECT m.user_id, u.username, m.role, "+timeColumn(q.dialect, "m.created_at")+
			" FROM vehicle_members m JOIN users u ON u.id = m.user_id WHERE m.vehicle_id = ? ORDER BY m.user_id", vehicleID).Rows()
		if err != nil {
			return fmt.Errorf("list members: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var m fuel.Member
			if err := rows.Scan(&m.UserID, &m.Username, &m.Role, (*timestamp)(&m.CreatedAt)); err != nil {
				return fmt.Errorf("list members: %w", err)
			}
			m.CreatedAt = m.CreatedAt.UTC()
			out = append(out, m)
		}
		return rows.Err()
	}, q.snapshot())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetMember shares a vehicle with a user as role (viewer or editor), or
// changes the role of a member. Only the owner may (ErrForbidden for a
// member), and not with themselves; accounts.ErrUserNotFound for an unknown user.
func (q *queries) SetMember(ctx context.Context, vehicleID, userID uint64, role fuel.Role) (fuel.Member, error) {
	if _, err := fuel.ParseMemberRole("role", string(role)); err != nil {
		return fuel.Member{}, err
	}
	m := fuel.Member{UserID: userID, Role: role, CreatedAt: q.now()}
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := q.ownedVehicle(ctx, tx, vehicleID, true, false)
		if err != nil {
			return err
		}
		if userID == v.OwnerID {
			return apperr.Invalid("user_id", "is the vehicle's owner")
		}
		if !storable(userID) {
			return accounts.ErrUserNotFound
		}
		err = tx.Raw("SELECT username FROM users WHERE id = ?", userID).Row().Scan(&m.Username)
		if errors.Is(err, sql.ErrNoRows) {
			return accounts.ErrUserNotFound
		}
		if err != nil {
			return fmt.Errorf("get user %d: %w", userID, err)
		}
		err = tx.Raw(`INSERT INTO vehicle_members (vehicle_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (vehicle_id, user_id) DO UPDATE SET role = excluded.role
			RETURNING `+timeColumn(q.dialect, "created_at"), vehicleID, userID, string(role), m.CreatedAt).
			Row().Scan((*timestamp)(&m.CreatedAt))
		if errors.Is(err, gorm.ErrForeignKeyViolated) {
			return accounts.ErrUserNotFound // deleted since it was read
		}
		if err != nil {
			return fmt.Errorf("set member: %w", err)
		}
		m.CreatedAt = m.CreatedAt.UTC()
		return nil
	})
	if err != nil {
		return fuel.Member{}, err
	}
	return m, nil
}

// RemoveMember ends the sharing of a vehicle with a user. Only the owner
// may; ErrMemberNotFound when the user is not a member.
func (q *queries) RemoveMember(ctx context.Context, vehicleID, userID uint64) error {
	return q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := q.ownedVehicle(ctx, tx, vehicleID, true, false); err != nil {
			return err
		}
		if !storable(userID) {
			return fuel.ErrMemberNotFound
		}
		res := tx.Exec("DELETE FROM vehicle_members WHERE vehicle_id = ? AND user_id = ?", vehicleID, userID)
		if res.Error != nil {
			return fmt.Errorf("remove member: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return fuel.ErrMemberNotFound
		}
		return nil
	})
}
