package todo

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/todoaudit/todo/internal/timetext"
)

// An activity entry is a reference to an audit record in a partition of
// the audit container that holds one user's records of one calendar month
// (UTC): those the user made (actor) and those of the user's todos
// (owner). It is an index, not a copy: "what did Alice do in March" and
// "what was done to Alice's todos" read one logical partition per month,
// ordered by time, instead of every audit record, and then the records
// of the page by id. An entry holds what the queries filter and sort on
// and what locates the record; its entity, commitments and hash stay in
// the record alone, so an entry is a few hundred bytes whatever the todo,
// and an erasure or a retention purge has one copy of the content to
// reach. Entries written before they were references are whole copies
// (with an entity); Record serves those as they are.

// ActivityPrefix starts the key of every activity partition.
const ActivityPrefix = "activity/"

// ActivityMonth is the period of an activity partition: the UTC month.
const ActivityMonth = "2006-01"

// ActivityKey is the audit partition key of user's activity in the month
// of at.
func ActivityKey(user string, at time.Time) string {
	return ActivityPrefix + user + "/" + at.UTC().Format(ActivityMonth)
}

// TimeKey is t in UTC with exactly nine fractional digits: strings of
// this form compare as the times do (RFC 3339 text with trimmed fractions
// does not), so that a store's string order is time order.
func TimeKey(t time.Time) string {
	var b [len(timetext.KeyLayout)]byte
	return string(AppendTimeKey(b[:0], t))
}

// AppendTimeKey appends TimeKey(t) to b.
func AppendTimeKey(b []byte, t time.Time) []byte { return timetext.AppendKey(b, t) }

// IsActivityKey reports whether an audit partition key is an activity
// partition's.
func IsActivityKey(key string) bool { return strings.HasPrefix(key, ActivityPrefix) }

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
	return PlaceActivity(AuditRecord{EntityID: r.EntityID, EntityType: r.EntityType, Version: r.Version, Operation: r.Operation,
		DateCreatedUTC: r.DateCreatedUTC, Actor: r.Actor, Owner: owner, Category: category}, owner+"/"+r.ID)
}

// PlaceActivity returns entry e in the activity partition of its actor
// and, when someone else is its owner, of its owner, in the month of its
// DateCreatedUTC, with At set from it and the id "activity-" and the hex
// SHA-256 of seed (deterministic, so that writing it again rewrites it).
// A user whose id is not valid gets none.
func PlaceActivity(e AuditRecord, seed string) []AuditRecord {
	users := []string{e.Actor}
	if e.Owner != e.Actor {
		users = append(users, e.Owner)
	}
	sum := sha256.Sum256([]byte(seed))
	e.ID, e.At = "activity-"+hex.EncodeToString(sum[:]), TimeKey(e.DateCreatedUTC)
	out := make([]AuditRecord, 0, len(users))
	for _, u := range users {
		if ValidateUserID(u) != nil {
			continue
		}
		e.EntityKey = ActivityKey(u, e.DateCreatedUTC)
		out = append(out, e)
	}
	return out
}

// IsReference reports whether an activity entry is a reference to its
// audit record, which RecordKey locates, rather than a copy of it.
func (r AuditRecord) IsReference() bool {
	return r.Owner != "" && r.EntityType == EntityTypeTodo && (len(r.Entity) == 0 || string(r.Entity) == "null")
}

// RecordKey is the audit partition key and id of the record an activity
// entry of a todo refers to.
func (r AuditRecord) RecordKey() (entityKey, id string) {
	return EntityKey(r.Owner, r.EntityID), AuditID(r.EntityID, r.Version)
}

// Record returns the audit record an activity entry of the first form
// copies. An entry of an erasure copies no record: it is shown with the
// erasure's id and the governance partition that holds the erasure. A
// reference (IsReference) gives only the record's key: its content is
// read from there.
func (r AuditRecord) Record() AuditRecord {
	switch {
	case r.Owner == "":
		return r
	case r.EntityType == EntityTypeErasure:
		r.ID, r.EntityKey = r.EntityID, GovernanceKey
		r.Owner, r.Category, r.At = "", "", ""
		return r
	}
	r.EntityKey, r.ID = r.RecordKey()
	r.Owner, r.Category, r.At = "", "", ""
	return r
}
