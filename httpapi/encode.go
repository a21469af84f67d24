package httpapi

import (
	"strconv"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsonstr"
)

// appendTodo appends the API view of t as JSON: every property of
// todo.Todo but the internal ones, in declaration order, the bytes
// encoding/json would give, without reflection (a point read spends a good
// part of its time encoding). Tests hold its properties to todo.Todo and
// openapi.json, and its bytes to encoding/json.
func appendTodo(b []byte, t *todo.Todo) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"userId":`...)
	b = appendString(b, t.UserID)
	b = append(b, `,"category":`...)
	b = appendString(b, t.Category)
	b = append(b, `,"title":`...)
	b = appendString(b, t.Title)
	if t.Notes != "" {
		b = append(b, `,"notes":`...)
		b = appendString(b, t.Notes)
	}
	if t.DueDate != nil {
		b = append(b, `,"dueDate":`...)
		b = appendTime(b, *t.DueDate)
	}
	if len(t.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, tag := range t.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, tag)
		}
		b = append(b, ']')
	}
	b = append(b, `,"isCompleted":`...)
	b = strconv.AppendBool(b, t.IsCompleted)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, t.Version, 10)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, t.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendTime(b, t.UpdatedAt)
	if t.MovedFrom != "" {
		b = append(b, `,"movedFrom":`...)
		b = appendString(b, t.MovedFrom)
	}
	return append(b, '}')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.JSON) }
