package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

var _ notifications.Store = (*queries)(nil)

// settingsColumns are the columns of notification_settings in the order
// scanSettings reads them (updated_at last, as timeColumn).
const settingsColumns = "email, webhook_url, webhook_format, webhook_token, push_on, email_on, webhook_on, notify_when, digest_time, viewer_reminders, "

func scanSettings(row interface{ Scan(...any) error }) (notifications.Settings, error) {
	var s notifications.Settings
	err := row.Scan(&s.Email, &s.WebhookURL, &s.WebhookFormat, &s.WebhookToken, &s.Channels.Push, &s.Channels.Email,
		&s.Channels.Webhook, &s.When, &s.DigestTime, &s.ViewerReminders, (*timestamp)(&s.UpdatedAt))
	s.UpdatedAt = s.UpdatedAt.UTC()
	return s, err
}

// NotificationSettings implements notifications.Store.
func (q *queries) NotificationSettings(ctx context.Context) (notifications.Settings, error) {
	s, err := scanSettings(q.read.WithContext(ctx).Raw("SELECT "+settingsColumns+timeColumn(q.dialect, "updated_at")+
		" FROM notification_settings WHERE user_id = ?", auth.UserID(ctx)).Row())
	if errors.Is(err, sql.ErrNoRows) {
		return notifications.DefaultSettings(), nil
	}
	if err != nil {
		return notifications.Settings{}, fmt.Errorf("get notification settings: %w", err)
	}
	return s, nil
}

// SaveNotificationSettings implements notifications.Store: one upsert of
// the whole row.
func (q *queries) SaveNotificationSettings(ctx context.Context, s notifications.Settings, now time.Time) (notifications.Settings, error) {
	uid := auth.UserID(ctx)
	out, err := scanSettings(q.write.WithContext(ctx).Raw("INSERT INTO notification_settings (user_id, "+settingsColumns+"updated_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "+
		"email = excluded.email, webhook_url = excluded.webhook_url, webhook_format = excluded.webhook_format, "+
		"webhook_token = excluded.webhook_token, push_on = excluded.push_on, email_on = excluded.email_on, "+
		"webhook_on = excluded.webhook_on, notify_when = excluded.notify_when, digest_time = excluded.digest_time, "+
		"viewer_reminders = excluded.viewer_reminders, updated_at = excluded.updated_at "+
		"RETURNING "+settingsColumns+timeColumn(q.dialect, "updated_at"),
		uid, s.Email, s.WebhookURL, s.WebhookFormat, s.WebhookToken, s.Channels.Push, s.Channels.Email, s.Channels.Webhook,
		s.When, s.DigestTime, s.ViewerReminders, fuel.NormalizeTime(now)).Row())
	if err != nil {
		if q.userGone(ctx, uid) {
			return notifications.Settings{}, fuel.ErrUserGone
		}
		return notifications.Settings{}, fmt.Errorf("save notification settings: %w", err)
	}
	return out, nil
}

// userGone reports whether the user no longer exists: what a failed
// foreign key on a row of the user's own means (the drivers report it
// differently; the users table tells).
func (q *queries) userGone(ctx context.Context, uid uint64) bool {
	var n int64
	err := q.write.WithContext(ctx).Raw("SELECT count(*) FROM users WHERE id = ?", uid).Row().Scan(&n)
	return err == nil && n == 0
}

// AddPushSubscription implements notifications.Store.
func (q *queries) AddPushSubscription(ctx context.Context, s notifications.Subscription, now time.Time) (notifications.Subscription, error) {
	uid := auth.UserID(ctx)
	s.CreatedAt = fuel.NormalizeTime(now)
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The endpoint decides: a device that changed hands keeps its id
		// and follows its new user.
		err := tx.Raw("INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?) "+
			"ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth "+
			"RETURNING id, "+timeColumn(q.dialect, "created_at"), uid, s.Endpoint, s.P256dh, s.Auth, s.CreatedAt).
			Row().Scan(&s.ID, (*timestamp)(&s.CreatedAt))
		if err != nil {
			return err
		}
		return tx.Exec("DELETE FROM push_subscriptions WHERE user_id = ? AND id NOT IN "+
			"(SELECT id FROM push_subscriptions WHERE user_id = ? ORDER BY id DESC LIMIT ?)",
			uid, uid, notifications.MaxSubscriptions).Error
	})
	if err != nil {
		if q.userGone(ctx, uid) {
			return notifications.Subscription{}, fuel.ErrUserGone
		}
		return notifications.Subscription{}, fmt.Errorf("add push subscription: %w", err)
	}
	s.CreatedAt = s.CreatedAt.UTC()
	return s, nil
}

// DeletePushSubscription implements notifications.Store.
func (q *queries) DeletePushSubscription(ctx context.Context, id uint64) error {
	if !storable(id) {
		return notifications.ErrSubscriptionNotFound
	}
	res := q.write.WithContext(ctx).Exec("DELETE FROM push_subscriptions WHERE id = ? AND user_id = ?", id, auth.UserID(ctx))
	if res.Error != nil {
		return fmt.Errorf("delete push subscription %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return notifications.ErrSubscriptionNotFound
	}
	return nil
}

// PushSubscriptions implements notifications.Store.
func (q *queries) PushSubscriptions(ctx context.Context) ([]notifications.Subscription, error) {
	rows, err := q.read.WithContext(ctx).Raw("SELECT id, endpoint, p256dh, auth, "+timeColumn(q.dialect, "created_at")+
		" FROM push_subscriptions WHERE user_id = ? ORDER BY id", auth.UserID(ctx)).Rows()
	if err != nil {
		return nil, fmt.Errorf("list push subscriptions: %w", err)
	}
	defer rows.Close()
	var out []notifications.Subscription
	for rows.Next() {
		var s notifications.Subscription
		if err := rows.Scan(&s.ID, &s.Endpoint, &s.P256dh, &s.Auth, (*timestamp)(&s.CreatedAt)); err != nil {
			return nil, fmt.Errorf("list push subscriptions: %w", err)
		}
		s.CreatedAt = s.CreatedAt.UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// NotifiedUsers implements notifications.Store: every user's, not the
// caller's (the runner's).
func (q *queries) NotifiedUsers(ctx context.Context) ([]uint64, error) {
	var ids []uint64
	err := q.read.WithContext(ctx).Raw("SELECT user_id FROM notification_settings WHERE push_on OR email_on OR webhook_on ORDER BY user_id").
		Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("list notified users: %w", err)
	}
	return ids, nil
}

// ClaimDelivery implements notifications.Store. The unique key decides
// between claimants: an insert that meets the row of another returns
// nothing (ON CONFLICT DO NOTHING, which waits on PostgreSQL for the
// other's transaction and then yields to it). A pending row whose lease
// passed is then taken by an update that requires it still passed: two
// updates of the same row run one after the other (the row's lock on
// PostgreSQL, the one writer on SQLite), and the second no longer
// matches.
func (q *queries) ClaimDelivery(ctx context.Context, c notifications.Claim) (uint64, bool, error) {
	uid := auth.UserID(ctx)
	now, lease := fuel.NormalizeTime(c.Now), fuel.NormalizeTime(c.LeaseUntil)
	var reminder, status any
	if c.ReminderID != 0 {
		reminder = c.ReminderID
	}
	if c.ReminderStatus != "" {
		status = string(c.ReminderStatus)
	}
	db := q.write.WithContext(ctx)
	var ids []uint64
	err := db.Raw("INSERT INTO notification_deliveries (user_id, channel, occurrence, kind, reminder_id, reminder_status, title, vehicle, "+
		"state, attempts, last_error, claim_token, lease_until, created_at, updated_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, '', ?, ?, ?, ?) "+
		"ON CONFLICT (user_id, channel, occurrence) DO NOTHING RETURNING id",
		uid, string(c.Channel), c.Occurrence, c.Kind, reminder, status, c.Title, c.Vehicle, c.Token, lease, now, now).Scan(&ids).Error
	if errors.Is(q.translate(err), gorm.ErrForeignKeyViolated) {
		return 0, false, nil // the reminder (or the user) was deleted meanwhile: nothing to notify
	}
	if err != nil {
		return 0, false, fmt.Errorf("claim delivery: %w", err)
	}
	if len(ids) == 1 {
		return ids[0], true, nil
	}
	err = db.Raw("UPDATE notification_deliveries SET claim_token = ?, lease_until = ?, updated_at = ? "+
		"WHERE user_id = ? AND channel = ? AND occurrence = ? AND state = 'pending' AND lease_until < ? RETURNING id",
		c.Token, lease, now, uid, string(c.Channel), c.Occurrence, now).Scan(&ids).Error
	if err != nil {
		return 0, false, fmt.Errorf("take over delivery: %w", err)
	}
	if len(ids) == 1 {
		return ids[0], true, nil
	}
	return 0, false, nil
}

// translate turns a driver's error into GORM's (gorm.ErrForeignKeyViolated
// and the like), as TranslateError does for GORM's own statements but not
// for the rows of Raw.
func (q *queries) translate(err error) error {
	if t, ok := q.write.Dialector.(gorm.ErrorTranslator); ok && err != nil {
		return t.Translate(err)
	}
	return err
}

// RenewDelivery implements notifications.Store.
func (q *queries) RenewDelivery(ctx context.Context, id uint64, token string, leaseUntil time.Time) (bool, error) {
	res := q.write.WithContext(ctx).Exec("UPDATE notification_deliveries SET lease_until = ? WHERE id = ? AND claim_token = ? AND state = 'pending'",
		fuel.NormalizeTime(leaseUntil), id, token)
	if res.Error != nil {
		return false, fmt.Errorf("renew delivery %d: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// FinishDelivery implements notifications.Store.
func (q *queries) FinishDelivery(ctx context.Context, id uint64, token string, o notifications.Outcome) (bool, error) {
	at := fuel.NormalizeTime(o.At)
	res := q.write.WithContext(ctx).Exec("UPDATE notification_deliveries SET state = ?, attempts = ?, last_error = ?, updated_at = ?, lease_until = ? "+
		"WHERE id = ? AND claim_token = ? AND state = 'pending'", o.State, o.Attempts, o.Error, at, at, id, token)
	if res.Error != nil {
		return false, fmt.Errorf("finish delivery %d: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// ReleaseDelivery implements notifications.Store.
func (q *queries) ReleaseDelivery(ctx context.Context, id uint64, token string, attempts int, now time.Time) error {
	now = fuel.NormalizeTime(now)
	err := q.write.WithContext(ctx).Exec("UPDATE notification_deliveries SET lease_until = ?, attempts = ?, updated_at = ? "+
		"WHERE id = ? AND claim_token = ? AND state = 'pending'", now, attempts, now, id, token).Error
	if err != nil {
		return fmt.Errorf("release delivery %d: %w", id, err)
	}
	return nil
}

// Deliveries implements notifications.Store.
func (q *queries) Deliveries(ctx context.Context, limit int) ([]notifications.Delivery, error) {
	rows, err := q.read.WithContext(ctx).Raw("SELECT id, kind, channel, reminder_id, reminder_status, title, vehicle, state, attempts, last_error, "+
		timeColumn(q.dialect, "created_at")+", "+timeColumn(q.dialect, "updated_at")+
		" FROM notification_deliveries WHERE user_id = ? ORDER BY id DESC LIMIT ?", auth.UserID(ctx), limit).Rows()
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	out := []notifications.Delivery{}
	for rows.Next() {
		var (
			d        notifications.Delivery
			reminder sql.NullInt64
			status   sql.NullString
			channel  string
		)
		if err := rows.Scan(&d.ID, &d.Kind, &channel, &reminder, &status, &d.Title, &d.Vehicle, &d.State, &d.Attempts, &d.Error,
			(*timestamp)(&d.CreatedAt), (*timestamp)(&d.UpdatedAt)); err != nil {
			return nil, fmt.Errorf("list deliveries: %w", err)
		}
		d.Channel, d.ReminderID, d.ReminderStatus = notifications.Channel(channel), uint64(reminder.Int64), fuel.ReminderStatus(status.String)
		d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// VAPIDKeyName is the service_keys row of the VAPID private key.
const VAPIDKeyName = "vapid_private_key"

// ServiceKey returns the key stored under name, made by generate and
// stored first when there is none. Replicas that start together agree:
// the first insert wins and every one reads it back.
func (s *Store) ServiceKey(ctx context.Context, name string, generate func() (string, error)) (string, error) {
	read := func() (string, error) {
		var v string
		err := s.write.WithContext(ctx).Raw("SELECT value FROM service_keys WHERE name = ?", name).Row().Scan(&v)
		return v, err
	}
	v, err := read()
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("read service key %s: %w", name, err)
	}
	fresh, err := generate()
	if err != nil {
		return "", err
	}
	if err := s.write.WithContext(ctx).Exec("INSERT INTO service_keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
		name, fresh, s.now()).Error; err != nil {
		return "", fmt.Errorf("store service key %s: %w", name, err)
	}
	if v, err = read(); err != nil {
		return "", fmt.Errorf("read service key %s: %w", name, err)
	}
	return v, nil
}
