package invocation

import (
	"fmt"

	"github.com/todoaudit/todo/functions"
)

// MaxDocumentBytes bounds one change-feed document as the host sends it to
// AuditTrigger, string-encoded twice (the Cosmos DB extension 4.x wire
// shape). The largest todo or version document the API writes (notes,
// title and tags at their limits, every character one that the store's
// JSON escapes to six bytes, as "<" to \u003c) takes 619,516 bytes so;
// the rest is room for the system properties Cosmos DB adds.
const MaxDocumentBytes = 640 << 10

// envelopeBytes bounds the rest of an invocation: the Data key, the
// array's brackets and commas, and Metadata (sys, a retry context).
const envelopeBytes = 64 << 10

// MinPayloadBytes is the smallest invocation limit that admits every batch
// the host can send AuditTrigger: maxItemsPerInvocation documents of
// MaxDocumentBytes each, and the envelope.
func MinPayloadBytes() (int64, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return 0, err
	}
	in, ok := f.Trigger()
	if !ok || in.MaxItemsPerInvocation <= 0 {
		return 0, fmt.Errorf("AuditTrigger/function.json sets no maxItemsPerInvocation, so its batches have no size bound")
	}
	return int64(in.MaxItemsPerInvocation)*MaxDocumentBytes + envelopeBytes, nil
}

// CheckPayloadLimit refuses an invocation limit that the host's largest
// AuditTrigger batch would exceed: the host would get 413 for it, retry,
// and then drop it with every other user's changes in it.
func CheckPayloadLimit(limit int64) error {
	need, err := MinPayloadBytes()
	if err != nil {
		return err
	}
	if limit < need {
		return fmt.Errorf("MAX_PAYLOAD_BYTES %d is below the %d bytes of the largest batch the host can send AuditTrigger (maxItemsPerInvocation × %d bytes of the largest document, string-encoded twice, and the envelope): raise it, or lower maxItemsPerInvocation in AuditTrigger/function.json", limit, need, MaxDocumentBytes)
	}
	return nil
}
