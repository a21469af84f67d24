package transparency

import (
	"encoding/json"
	"fmt"
)

// ProblemAnswer returns an error saying that b is an HTTP error answer (an
// RFC 9457 problem+json body, as the handler answers a failed request),
// saved in place of what was to be verified; nil when it is not one.
func ProblemAnswer(b []byte) error {
	var p struct {
		Type   *string `json:"type"`
		Title  *string `json:"title"`
		Status *int    `json:"status"`
		Detail string  `json:"detail"`
	}
	if json.Unmarshal(b, &p) != nil || p.Title == nil || p.Status == nil {
		return nil
	}
	return fmt.Errorf("this is an HTTP error answer, not what was asked for: %d %s: %s", *p.Status, *p.Title, p.Detail)
}
