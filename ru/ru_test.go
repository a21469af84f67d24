package ru

import "testing"

func TestCharges(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"read empty", Read(0), 1},
		{"read 1KB", Read(1024), 1},
		{"read 1KB+1", Read(1025), 2},
		{"write 600B", Write(600), 6},
		{"write 3KB", Write(3000), 18},
		{"query nothing", Query(0, 0), 2.5},
		{"query 100 scanned 10KB", Query(100, 10*1024), 2.5 + 5 + 10},
		{"change feed 1.5KB", ChangeFeed(1536), 3},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
