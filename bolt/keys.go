package bolt

import "github.com/todoaudit/todo/store"

// Partition key components are encoded so that byte order equals component
// order and no encoded key is a prefix of another unless its partition key
// is a prefix: 0x00 inside a component becomes 0x00 0xFF, and each component
// ends with 0x00 0x01.
const (
	escByte  = 0x00
	escNul   = 0xFF
	escEnd   = 0x01
	idMarker = 0x02 // separates the partition key from the id
)

func appendComponent(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == escByte {
			b = append(b, escByte, escNul)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, escByte, escEnd)
}

// pkPrefix encodes a full or partial partition key.
func pkPrefix(pk store.PartitionKey) []byte {
	var b []byte
	for _, c := range pk {
		b = appendComponent(b, c)
	}
	return b
}

// itemKey is the key of one item: its full partition key, then its id,
// built in one allocation.
func itemKey(pk store.PartitionKey, id string) []byte {
	n := 1 + len(id)
	for _, c := range pk {
		n += len(c) + 2
	}
	b := make([]byte, 0, n)
	for _, c := range pk {
		b = appendComponent(b, c)
	}
	b = append(b, idMarker)
	return append(b, id...)
}

// splitItemKey decodes an item key of a container with n key paths back
// into its partition key and id.
func splitItemKey(k []byte, n int) (store.PartitionKey, string) {
	pk := make(store.PartitionKey, 0, n)
	var buf [64]byte
	cur := buf[:0] // a component as it is unescaped; most fit the buffer
	i := 0
	for len(pk) < n && i < len(k) {
		if k[i] == escByte && i+1 < len(k) {
			if k[i+1] == escEnd {
				pk = append(pk, string(cur))
				cur = cur[:0]
			} else {
				cur = append(cur, escByte)
			}
			i += 2
			continue
		}
		cur = append(cur, k[i])
		i++
	}
	if i < len(k) && k[i] == idMarker {
		i++
	}
	return pk, string(k[i:])
}

// partitionOf is the part of item key k that encodes its partition key,
// of n components.
func partitionOf(k []byte, n int) []byte {
	for i := 0; i+1 < len(k) && n > 0; i++ {
		if k[i] == escByte {
			if k[i+1] == escEnd {
				n--
			}
			i++
			if n == 0 {
				return k[:i+1]
			}
		}
	}
	return k
}
