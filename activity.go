package todo

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// An activity entry is a copy of an audit record in a partition of the
// audit container that holds one user's records of one calendar month
// (UTC): those the user made (actor) and those of the user's todos
// (owner). It is a materialized view: "what did Alice do in March" and
// "what was done to Alice's todos" read one logical partition per month,
// ordered by time, instead of every audit record. The entries are
// written beside the record, in the same output, and carry no hash of
// their own: the record in its entity's partition stays the one the chain
// covers.
const activityPrefix = "activity/"

// ActivityMonth is the period of an activity partition: the UTC month.
const ActivityMonth = "2006-01"

// ActivityKey is the audit partition key of user's activity in the month
// of at.
func ActivityKey(user string, at time.Time) string {
	return activityPrefix + user + "/" + at.UTC().Format(ActivityMonth)
}

// TimeKey is t in UTC with exactly nine fractional digits: strings of
// this form compare as the times do (RFC 3339 text with trimmed fractions
// does not), so that a store's string order is time order.
func TimeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// IsActivityKey reports whether an audit partition key is an activity
// partition's.
func IsActivityKey(key string) bool { return strings.HasPrefix(key, activityPrefix) }

// OwnerOf returns the owner of an audit record: the user part of its
// entity key.
func (r *AuditRecord) OwnerOf() string {
	rest := strings.TrimPrefix(r.EntityKey, EntityTypeTodo+"/")
	owner, _, _ := strings.Cut(rest, "/")
	return owner
}

// ActivityEntries returns the activity entries of audit record r: one in
// the actor's partition and, when someone else owns the todo, one in the
// owner's. Their ids are a digest of the owner and the record's id (a todo
// id is unique per owner only; the digest keeps the id within the store's
// 255 bytes however long the todo id) and deterministic, so a redelivered
// record rewrites them.
func ActivityEntries(r AuditRecord, category string) []AuditRecord {
	owner := r.OwnerOf()
	users := []string{r.Actor}
	if owner != r.Actor {
		users = append(users, owner)
	}
	out := make([]AuditRecord, 0, len(users))
	for _, u := range users {
		if ValidateUserID(u) != nil {
			continue
		}
		e := r
		sum := sha256.Sum256([]byte(owner + "/" + r.ID))
		e.ID = "activity-" + hex.EncodeToString(sum[:])
		e.EntityKey = ActivityKey(u, r.DateCreatedUTC)
		e.Owner, e.Category, e.At = owner, category, TimeKey(r.DateCreatedUTC)
		out = append(out, e)
	}
	return out
}

// Record returns the audit record an activity entry copies. An entry of
// an erasure copies no record: it is shown with the erasure's id and the
// governance partition that holds the erasure.
func (r AuditRecord) Record() AuditRecord {
	switch {
	case r.Owner == "":
		return r
	case r.EntityType == EntityTypeErasure:
		r.ID, r.EntityKey = r.EntityID, GovernanceKey
		r.Owner, r.Category, r.At = "", "", ""
		return r
	}
	r.ID = AuditID(r.EntityID, r.Version)
	r.EntityKey = EntityKey(r.Owner, r.EntityID)
	r.Owner, r.Category, r.At = "", "", ""
	return r
}
