// Command store-compact rewrites the embedded store's file with every page
// filled and prints its size before and after. Pages of keys that arrive
// in random order (todo and audit ids) split about half full, and pages
// freed by purges stay in the file; a compacted file holds little more
// than its data. Stop the handler first: it holds the file, and the
// command refuses a file in use. It needs room for the copy beside the
// file, and replaces the file only once the copy is complete.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/todoaudit/todo/bolt"
)

func main() {
	dir := flag.String("data-dir", envOr("DATA_DIR", "./.data"), "the embedded store's directory (DATA_DIR)")
	flag.Parse()
	before, after, err := bolt.Compact(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "store-compact:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d B before, %d B after (%.0f%% less)\n", *dir, before, after, 100*(1-float64(after)/float64(before)))
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
