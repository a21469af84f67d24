package analyze

import (
	"encoding/json"
	"math"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/ru"
)

// The activity estimate: what one page of a user's audit records in a time
// range costs in the audit container, newest first, as GET /api/activity
// (the caller's todos) and GET /api/manage/audit?actor= (an administrator)
// read it, before the activity view and with it. Every write of a
// generated todo is an audit record; the view refers to each from an
// entry in the activity partition of its actor's month (the owner's is the
// same partition: a generated todo is written by its owner only).
//
// Before the view the only way is a cross-partition query of the audit
// container for the actor's records in the range. Its indexing then held
// none of the filtered properties (actor, dateCreatedUtc), so the query
// loads every audit record, and since it cannot sort by an unindexed
// property, newest first needs every match read before the first page can
// be answered: the page costs the whole scan. The embedded store answers
// such a query one page of matches per request, loading documents until the
// page is full; Cosmos DB sends at least one request per physical
// partition.
//
// With the view a page reads the user's month partitions newest first, one
// request each, walking the range index of at and loading only the
// entries it returns, until the page is full, and then point-reads the
// record each entry refers to.

// systemBytes is what the embedded store adds to every stored document:
// its _etag and _ts, which a query returns with the document.
const systemBytes = int64(len(`"_etag":"\"0000000000000001\"","_ts":1767225600,`))

// activityLookups is the index lookups of one request to the view: the two
// bounds of at and the actor (or owner).
const activityLookups = 3

// recordOverhead is what an audit record of a generated todo adds to the
// todo document's size as stored, and entryBytes the size of its activity
// entry as stored (a reference: the same for every todo): measured on one
// built as the audit builds it.
var recordOverhead, entryBytes = auditSizes()

// auditSizes builds the audit record of a todo's second version as the
// audit builds it (sealed in the second chain encoding, with its
// commitments) and its activity entry, and measures the record against
// the todo document as the generator sizes it (before its first write
// sets version and operation: see EachVersion) and the entry as stored.
func auditSizes() (record, entry int64) {
	at := Start.Add(40*24*time.Hour + 123456789)
	user := UserID(0)
	t := todo.Todo{ID: CategoryName(0) + ":0123abcd-0123-4abc-8abc-0123456789ab", Type: todo.TypeTodo, UserID: user,
		Fields:    todo.Fields{Category: CategoryName(0), Title: "todo 1234567890", Notes: "n"},
		CreatedAt: at, UpdatedAt: at, UpdatedBy: user}
	doc, _ := json.Marshal(t)
	t.Version, t.LastOperation = 1, todo.OpCreate
	hashchain.Seal(&t)
	t.Version, t.LastOperation, t.UpdatedAt = 2, todo.OpUpdate, at.Add(time.Hour)
	rec, err := todo.NewAuditRecord(todo.NewVersion(t, hashchain.Seal(&t), 0))
	if err != nil {
		panic(err)
	}
	r, _ := json.Marshal(rec)
	e, _ := json.Marshal(todo.ActivityEntries(rec, t.Category)[0])
	return int64(len(r)-len(doc)) + systemBytes, int64(len(e)) + systemBytes
}

// monthOf numbers a UTC calendar month.
func monthOf(t time.Time) int32 {
	t = t.UTC()
	return int32(t.Year()*12 + int(t.Month()) - 1)
}

// monthStart is the first instant of a month numbered by monthOf.
func monthStart(m int32) time.Time {
	return time.Date(int(m/12), time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC)
}

// monthCount is one user's activity partition of one month: its entries
// and the bytes of the records they refer to.
type monthCount struct {
	month       int32
	entries     int64
	recordBytes int64
}

// auditAgg is the audit container of a generated workload.
type auditAgg struct {
	records, bytes int64
	last           time.Time
}

// addAudit counts the audit records of a generated todo's writes and
// their activity entries in u's month partitions.
func (a *Analyzer) addAudit(r *Record, u *userAgg) {
	a.audit.records += int64(len(r.Times))
	a.audit.bytes += int64(len(r.Times)) * (r.Bytes + recordOverhead)
	for _, t := range r.Times {
		if t.After(a.audit.last) {
			a.audit.last = t
		}
		m := monthOf(t)
		i := 0
		for i < len(u.months) && u.months[i].month != m {
			i++
		}
		if i == len(u.months) {
			u.months = append(u.months, monthCount{month: m})
		}
		u.months[i].entries++
		u.months[i].recordBytes += r.Bytes + recordOverhead
	}
}

// ActivityUser is one user's cost of one page of activity.
type ActivityUser struct {
	User string `json:"user"`
	// Records is the user's audit records in the range.
	Records int64 `json:"recordsInRange"`
	// Before is the cross-partition query of the audit container, every
	// page of it; After is one page of the activity view.
	Before Cost `json:"before"`
	After  Cost `json:"after"`
}

// ActivityQuery is one activity query's cost for a typical (median by
// todos) and the busiest user.
type ActivityQuery struct {
	Pattern string       `json:"pattern"`
	Typical ActivityUser `json:"typical"`
	Busiest ActivityUser `json:"busiest"`
}

// Activity is the estimate of activity pages in the audit container.
type Activity struct {
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
	PageSize int       `json:"pageSize"`
	// Records and Bytes are the audit records (before the view, every
	// document of the audit container); Partitions the physical partitions
	// they need at the throughput asked.
	Records    int64           `json:"auditRecords"`
	Bytes      int64           `json:"auditBytes"`
	Partitions int             `json:"physicalPartitions"`
	Queries    []ActivityQuery `json:"queries"`
}

// activity estimates the activity queries over the last ActivityMonths
// calendar months of the workload; nil when the input has no write times
// (an export).
func (a *Analyzer) activity() *Activity {
	if a.audit.records == 0 {
		return nil
	}
	last := monthOf(a.audit.last)
	first := last - int32(a.opt.ActivityMonths) + 1
	act := &Activity{Since: monthStart(first), Until: monthStart(last + 1), PageSize: a.opt.ActivityPageSize,
		Records: a.audit.records, Bytes: a.audit.bytes}
	act.Partitions, _ = physicalCount(a.opt.Throughput, a.audit.bytes)
	typ, busy := a.pickUsers()
	users := [2]ActivityUser{}
	for i, id := range []string{typ, busy} {
		u := a.users[id]
		var n, bytes int64
		for _, m := range u.months {
			if m.month >= first && m.month <= last {
				n += m.entries
				bytes += m.recordBytes
			}
		}
		users[i] = ActivityUser{User: id, Records: n,
			Before: scanCost(n, bytes, a.audit.records, act.Partitions, act.PageSize),
			After:  viewCost(u.months, first, last, act.PageSize)}
	}
	for _, p := range []string{"own activity (GET /api/activity)", "admin by actor (GET /api/manage/audit?actor=)"} {
		act.Queries = append(act.Queries, ActivityQuery{Pattern: p, Typical: users[0], Busiest: users[1]})
	}
	return act
}

// scanCost is a cross-partition query that loads all docs of the
// container, spread evenly over its physical partitions, and returns n
// matches of the given total size, page by page: each partition answers at
// least one request and one per page of its matches.
func scanCost(n, bytes, docs int64, partitions, page int) Cost {
	c := Cost{Loaded: docs, Items: n}
	mean := 0.0
	if n > 0 {
		mean = float64(bytes) / float64(n)
	}
	p := int64(partitions)
	for i := range p {
		matches := n / p
		if i < n%p {
			matches++
		}
		loaded := docs / p
		if i < docs%p {
			loaded++
		}
		for first := true; first || matches > 0; first = false {
			k := min(matches, int64(page))
			matches -= k
			c.Requests++
			c.RU += ru.Query(ru.QueryWork{Partitions: 1, Loaded: loaded, ReturnedBytes: int64(math.Round(float64(k) * mean))})
			loaded = 0
		}
	}
	return c
}

// viewCost is one page of the view: the month partitions from last back
// to first, one request each, until the page is full, each loading just
// the entries it returns; then a point read of each entry's record.
func viewCost(months []monthCount, first, last int32, page int) Cost {
	var c Cost
	left := int64(page)
	for m := last; m >= first && left > 0; m-- {
		var n, bytes int64
		for _, mc := range months {
			if mc.month == m {
				n, bytes = mc.entries, mc.recordBytes
			}
		}
		k := min(left, n)
		left -= k
		c.Requests++
		c.Loaded += k
		c.Items += k
		c.RU += ru.Query(ru.QueryWork{Partitions: 1, Lookups: activityLookups, Loaded: k, ReturnedBytes: k * entryBytes})
		if k > 0 {
			c.Requests += int(k)
			c.RU += float64(k) * ru.Read(int64(math.Round(float64(bytes)/float64(n))))
		}
	}
	return c
}
