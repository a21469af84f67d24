package transparency

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// TileHeight is the C2SP tlog-tiles height: 256 hashes or entries a tile.
const TileHeight = 8

// tileWidth is the number of hashes or entries in a full tile.
const tileWidth = 1 << TileHeight

// TilePath is the C2SP tlog-tiles path of t: tile/<L>/<N>[.p/<W>] for hash
// tiles, tile/entries/<N>[.p/<W>] for entry bundles (t.L == -1). The
// go.sum database paths carry the height as well; C2SP fixes it at 8.
func TilePath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/8/")
	if rest, ok := strings.CutPrefix(p, "data/"); ok {
		return "tile/entries/" + rest
	}
	return "tile/" + p
}

// ParseTilePath reads a C2SP tlog-tiles path, refusing any other spelling
// of it.
func ParseTilePath(p string) (tlog.Tile, error) {
	rest, ok := strings.CutPrefix(p, "tile/")
	if !ok {
		return tlog.Tile{}, fmt.Errorf("tile path %q does not start with tile/", p)
	}
	if e, ok := strings.CutPrefix(rest, "entries/"); ok {
		rest = "data/" + e
	}
	t, err := tlog.ParseTilePath("tile/8/" + rest)
	if err != nil || t.H != TileHeight || TilePath(t) != p {
		return tlog.Tile{}, fmt.Errorf("%q is not a tile path", p)
	}
	return t, nil
}

// EncodeBundle is a C2SP entry bundle: each entry as a big-endian 16-bit
// length and its bytes.
func EncodeBundle(entries [][]byte) ([]byte, error) {
	var b []byte
	for _, e := range entries {
		if len(e) > 0xffff {
			return nil, fmt.Errorf("entry of %d bytes is longer than a bundle holds", len(e))
		}
		b = binary.BigEndian.AppendUint16(b, uint16(len(e)))
		b = append(b, e...)
	}
	return b, nil
}

// ParseBundle splits an entry bundle into its entries.
func ParseBundle(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, errors.New("entry bundle ends inside a length")
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, errors.New("entry bundle ends inside an entry")
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
		if len(out) > tileWidth {
			return nil, fmt.Errorf("entry bundle holds more than %d entries", tileWidth)
		}
	}
	return out, nil
}
