package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// attachableRecord is how the attachments of one kind of record are
// stored: the record's table, the attachments column that refers to it,
// and the error for a record the caller may not see.
type attachableRecord struct {
	table, column string
	notFound      error
}

// attachable holds every kind of record that takes attachments. Its
// tables and columns are the only names pasted into the statements below.
var attachable = map[fuel.RecordKind]attachableRecord{
	fuel.RecordRefuel:  {table: "refuels", column: "refuel_id", notFound: fuel.ErrRefuelNotFound},
	fuel.RecordExpense: {table: "expenses", column: "expense_id", notFound: fuel.ErrExpenseNotFound},
}

func attachableOf(r fuel.RecordRef) (attachableRecord, error) {
	rec, ok := attachable[r.Kind]
	if !ok {
		return rec, fmt.Errorf("attachments: unknown record kind %q", r.Kind)
	}
	return rec, nil
}

// recordRole reads, on h, the caller's role on the vehicle of the record
// r: the record's not-found error when it does not exist or the caller
// may not see it. With lock (h a transaction) the record's row stays
// locked until the transaction ends, so that its attachments are counted
// and added one writer at a time.
func (q *queries) recordRole(ctx context.Context, h *gorm.DB, r fuel.RecordRef, lock bool) (attachableRecord, fuel.Role, error) {
	rec, err := attachableOf(r)
	if err != nil {
		return rec, "", err
	}
	if !storable(r.ID) {
		return rec, "", rec.notFound
	}
	uid := auth.UserID(ctx)
	lockClause := q.lockClause(lock)
	if lockClause != "" {
		lockClause += " OF r"
	}
	var role fuel.Role
	err = h.WithContext(ctx).Raw("SELECT CASE WHEN v.owner_id = ? THEN 'owner' ELSE m.role END "+
		"FROM "+rec.table+" r JOIN vehicles v ON v.id = r.vehicle_id LEFT JOIN vehicle_members m ON m.vehicle_id = v.id AND m.user_id = ? "+
		"WHERE r.id = ? AND (v.owner_id = ? OR m.user_id IS NOT NULL)"+lockClause, uid, uid, r.ID, uid).Row().Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, "", rec.notFound
	}
	if err != nil {
		return rec, "", fmt.Errorf("get %s %d: %w", r.Kind, r.ID, err)
	}
	return rec, role, nil
}

// AttachmentRole implements fuel.AttachmentStore.
func (q *queries) AttachmentRole(ctx context.Context, r fuel.RecordRef) (fuel.Role, error) {
	_, role, err := q.recordRole(ctx, q.read, r, false)
	return role, err
}

// CreateAttachment implements fuel.AttachmentStore.
func (q *queries) CreateAttachment(ctx context.Context, a *fuel.Attachment) error {
	a.ID = 0
	a.CreatedAt = q.now()
	return q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rec, role, err := q.recordRole(ctx, tx, a.Record, true)
		if err != nil {
			return err
		}
		if !role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		var n int
		if err := tx.Raw("SELECT count(*) FROM attachments WHERE "+rec.column+" = ?", a.Record.ID).Row().Scan(&n); err != nil {
			return fmt.Errorf("count attachments: %w", err)
		}
		if n >= fuel.MaxAttachmentsPerRecord {
			return fuel.ErrTooManyAttachments
		}
		err = tx.Raw("INSERT INTO attachments ("+rec.column+", file_key, file_name, content_type, size_bytes, sha256, created_at) "+
			"VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
			a.Record.ID, a.FileKey, a.FileName, a.ContentType, a.Size, a.SHA256, a.CreatedAt).Row().Scan(&a.ID)
		if err != nil {
			return fmt.Errorf("create attachment: %w", err)
		}
		return nil
	})
}

// attachmentColumns are the columns attachmentRow.scan reads.
func attachmentColumns(d Dialect) string {
	return "a.id, a.refuel_id, a.expense_id, a.file_key, a.file_name, a.content_type, a.size_bytes, a.sha256, " + timeColumn(d, "a.created_at")
}

func scanAttachment(row interface{ Scan(...any) error }) (fuel.Attachment, error) {
	var (
		a               fuel.Attachment
		refuel, expense sql.NullInt64
	)
	err := row.Scan(&a.ID, &refuel, &expense, &a.FileKey, &a.FileName, &a.ContentType, &a.Size, &a.SHA256, (*timestamp)(&a.CreatedAt))
	if err != nil {
		return a, err
	}
	switch {
	case refuel.Valid:
		a.Record = fuel.RecordRef{Kind: fuel.RecordRefuel, ID: uint64(refuel.Int64)}
	case expense.Valid:
		a.Record = fuel.RecordRef{Kind: fuel.RecordExpense, ID: uint64(expense.Int64)}
	}
	a.CreatedAt = a.CreatedAt.UTC()
	return a, nil
}

// Attachments implements fuel.AttachmentStore.
func (q *queries) Attachments(ctx context.Context, r fuel.RecordRef) ([]fuel.Attachment, error) {
	out := []fuel.Attachment{}
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rec, _, err := q.recordRole(ctx, tx, r, false)
		if err != nil {
			return err
		}
		rows, err := tx.Raw("SELECT "+attachmentColumns(q.dialect)+" FROM attachments a WHERE a."+rec.column+" = ? ORDER BY a.id", r.ID).Rows()
		if err != nil {
			return fmt.Errorf("list attachments: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanAttachment(rows)
			if err != nil {
				return fmt.Errorf("list attachments: %w", err)
			}
			out = append(out, a)
		}
		return rows.Err()
	}, q.snapshot())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Attachment implements fuel.AttachmentStore.
func (q *queries) Attachment(ctx context.Context, r fuel.RecordRef, id uint64) (fuel.Attachment, error) {
	var out fuel.Attachment
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rec, _, err := q.recordRole(ctx, tx, r, false)
		if err != nil {
			return err
		}
		if !storable(id) {
			return fuel.ErrAttachmentNotFound
		}
		out, err = scanAttachment(tx.Raw("SELECT "+attachmentColumns(q.dialect)+" FROM attachments a WHERE a.id = ? AND a."+rec.column+" = ?",
			id, r.ID).Row())
		if errors.Is(err, sql.ErrNoRows) {
			return fuel.ErrAttachmentNotFound
		}
		if err != nil {
			return fmt.Errorf("get attachment %d: %w", id, err)
		}
		return nil
	}, q.snapshot())
	return out, err
}

// DeleteAttachment implements fuel.AttachmentStore. The trigger of
// migration 0012 lists the file for removal in the same transaction.
func (q *queries) DeleteAttachment(ctx context.Context, r fuel.RecordRef, id uint64) error {
	return q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rec, role, err := q.recordRole(ctx, tx, r, true)
		if err != nil {
			return err
		}
		if !role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		if !storable(id) {
			return fuel.ErrAttachmentNotFound
		}
		res := tx.Exec("DELETE FROM attachments WHERE id = ? AND "+rec.column+" = ?", id, r.ID)
		if res.Error != nil {
			return fmt.Errorf("delete attachment %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fuel.ErrAttachmentNotFound
		}
		return nil
	})
}

// DeletedAttachmentFiles implements fuel.AttachmentStore.
func (q *queries) DeletedAttachmentFiles(ctx context.Context, limit int) ([]string, error) {
	keys := []string{}
	err := q.write.WithContext(ctx).Raw("SELECT file_key FROM deleted_attachment_files ORDER BY file_key LIMIT ?", limit).Scan(&keys).Error
	if err != nil {
		return nil, fmt.Errorf("list deleted attachment files: %w", err)
	}
	return keys, nil
}

// ForgetDeletedAttachmentFiles implements fuel.AttachmentStore.
func (q *queries) ForgetDeletedAttachmentFiles(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if err := q.write.WithContext(ctx).Exec("DELETE FROM deleted_attachment_files WHERE file_key IN ?", keys).Error; err != nil {
		return fmt.Errorf("forget deleted attachment files: %w", err)
	}
	return nil
}
