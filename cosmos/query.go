package cosmos

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/todoaudit/todo/store"
)

// rendered is a store.Query as Cosmos DB SQL.
type rendered struct {
	SQL    string
	Params []azcosmos.QueryParameter
	// Key is the request's partition key: the full key, or empty (every
	// partition, narrowed by the WHERE clause) for a prefix or no key.
	Key   azcosmos.PartitionKey
	Scope store.Scope
}

var compareOps = map[store.CompareOp]string{
	store.Eq: "=", store.Ne: "!=", store.Lt: "<", store.Le: "<=", store.Gt: ">", store.Ge: ">=",
}

// render turns q into parameterised SQL for a container. Field names come
// from store.Query.Check's validated identifiers and are quoted where they
// are SQL keywords; every value is a parameter. The partition key, full or
// prefix, is always stated in WHERE: with a full key it repeats what the
// request header says (so that the query is right even where the header is
// ignored), with a prefix it is what routes the query, because the Go SDK
// only accepts full keys in the header.
func render(spec store.ContainerSpec, q store.Query) (rendered, error) {
	if err := q.Check(spec); err != nil {
		return rendered{}, err
	}
	r := rendered{Key: azcosmos.NewPartitionKey(), Scope: store.ScopeOf(q.PartitionKey, len(spec.PartitionKeyPaths))}
	var where []string
	for i, v := range q.PartitionKey {
		name := "@pk" + strconv.Itoa(i)
		where = append(where, property(strings.TrimPrefix(spec.PartitionKeyPaths[i], "/"))+" = "+name)
		r.Params = append(r.Params, azcosmos.QueryParameter{Name: name, Value: v})
	}
	if len(q.PartitionKey) == len(spec.PartitionKeyPaths) {
		r.Key = partitionKey(q.PartitionKey)
	}
	for i, f := range q.Filters {
		p := property(f.Field)
		switch f.Op {
		case store.IsDefined:
			where = append(where, "IS_DEFINED("+p+")")
		case store.NotDefined:
			where = append(where, "NOT IS_DEFINED("+p+")")
		case store.ContainsFold:
			name := r.param("@p"+strconv.Itoa(i), f.Value)
			where = append(where, "CONTAINS("+p+", "+name+", true)")
		case store.ArrayContains:
			name := r.param("@p"+strconv.Itoa(i), f.Value)
			where = append(where, "ARRAY_CONTAINS("+p+", "+name+")")
		default:
			name := "@p" + strconv.Itoa(i)
			where = append(where, p+" "+compareOps[f.Op]+" "+name)
			r.Params = append(r.Params, azcosmos.QueryParameter{Name: name, Value: f.Value})
		}
	}
	if q.After != nil {
		where = append(where, r.after(q.After))
	}
	var b strings.Builder
	b.WriteString("SELECT * FROM c")
	if len(where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(where, " AND "))
	}
	for i, o := range q.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(property(o.Field))
		if o.Desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
	}
	r.SQL = b.String()
	return r, nil
}

// param adds a query parameter and returns its name.
func (r *rendered) param(name string, v any) string {
	r.Params = append(r.Params, azcosmos.QueryParameter{Name: name, Value: v})
	return name
}

// after renders a seek as the condition that an item comes after its
// position: a greater value (smaller when descending), or the same one and
// a greater id (smaller). Undefined values come first in ascending order,
// where no comparison with a value holds, so they are told apart with
// IS_DEFINED.
func (r *rendered) after(k *store.Seek) string {
	p := property(k.Order.Field)
	beyond, id := ">", r.param("@afterId", k.ID)
	if k.Order.Desc {
		beyond = "<"
	}
	sameAndLater := "c.id " + beyond + " " + id
	if k.Value == nil {
		if k.Order.Desc {
			return "(NOT IS_DEFINED(" + p + ") AND " + sameAndLater + ")"
		}
		return "(IS_DEFINED(" + p + ") OR " + sameAndLater + ")"
	}
	var v any
	_ = json.Unmarshal(k.Value, &v) // Check validated it
	val := r.param("@after", v)
	cond := p + " " + beyond + " " + val + " OR (" + p + " = " + val + " AND " + sameAndLater + ")"
	if k.Order.Desc {
		cond += " OR NOT IS_DEFINED(" + p + ")"
	}
	return "(" + cond + ")"
}

// keywords are the Cosmos DB SQL reserved words a property name may collide
// with; such a property is written c["name"] instead of c.name.
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`and array as asc between by case cast convert cross desc distinct else
		end escape exists false for from group having in inner insert into is join left like limit not
		null of offset on or order outer over rank right select set then top true udf undefined update
		value when where with infinity nan`) {
		keywords[w] = true
	}
}

// property names a top-level property of the document c. name is a
// validated identifier ([A-Za-z_][A-Za-z0-9_]*), so it needs no escaping.
func property(name string) string {
	if keywords[strings.ToLower(name)] {
		return `c["` + name + `"]`
	}
	return "c." + name
}

// partitionKey converts a full store key to the SDK's.
func partitionKey(pk store.PartitionKey) azcosmos.PartitionKey {
	key := azcosmos.NewPartitionKeyString(pk[0])
	for _, v := range pk[1:] {
		key = key.AppendString(v)
	}
	return key
}
