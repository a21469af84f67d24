package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
)

// Dead letters are listed newest first, page by page, each exactly once.
func TestDeadLettersNewestFirst(t *testing.T) {
	svc, c := newService(t)
	auditC := c.Audit
	ctx := context.Background()
	start := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	var dead audit.Outcome
	for i := range 7 {
		doc := fmt.Sprintf(`{"id":"x%d","type":"todo","userId":" bad","version":1}`, i)
		// Seconds apart, written in a shuffled order.
		at := start.Add(time.Duration((i*3)%7) * time.Second)
		dead.DeadLetters = append(dead.DeadLetters, todo.NewDeadLetter("todos", json.RawMessage(doc), "invalid user id", at))
	}
	if err := dead.Write(ctx, auditC); err != nil {
		t.Fatal(err)
	}
	var got []string
	cont := ""
	for range 10 {
		p, err := svc.DeadLetters(ctx, 3, cont)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) > 3 {
			t.Fatalf("page of %d", len(p.Items))
		}
		for _, d := range p.Items {
			got = append(got, d.At)
		}
		if cont = p.Continuation; cont == "" {
			break
		}
	}
	if len(got) != 7 {
		t.Fatalf("%d dead letters listed, want 7: %v", len(got), got)
	}
	for i := range got {
		if want := start.Add(time.Duration(6-i) * time.Second).Format(todo.DeadLetterTimeLayout); got[i] != want {
			t.Fatalf("dead letter %d at %s, want %s (newest first): %v", i, got[i], want, got)
		}
	}
	if _, err := svc.DeadLetters(ctx, 101, ""); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("page size 101: %v", err)
	}
}
