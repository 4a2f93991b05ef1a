package shadow

import (
	"fmt"
	"testing"
)

// TestDefaultShards: Options.Shards 0 means one shard a CPU, at most 8, with at least 2,000
// reservations a shard (as Options.Shards documents).
func TestDefaultShards(t *testing.T) {
	for _, tc := range []struct{ cpus, jobs, want int }{
		{16, 100_000, 8}, // capped at 8 however many CPUs
		{8, 100_000, 8},
		{2, 100_000, 2}, // one a CPU
		{16, 9_999, 4},  // 2,000 reservations a shard
		{16, 4_000, 2},  // two shards of exactly 2,000
		{16, 3_999, 1},  // not two of 2,000
		{16, 2_000, 1},
		{16, 1_999, 1}, // fewer than 2,000: one shard
		{16, 1, 1},
	} {
		t.Run(fmt.Sprintf("%d CPUs %d reservations", tc.cpus, tc.jobs), func(t *testing.T) {
			if got := defaultShards(tc.cpus, tc.jobs); got != tc.want {
				t.Errorf("defaultShards(%d, %d) = %d, want %d", tc.cpus, tc.jobs, got, tc.want)
			}
		})
	}
}

// TestShardCount: Options.Shards as asked, bounded by MaxShards and by the reservations;
// 0 or less means defaultShards.
func TestShardCount(t *testing.T) {
	for _, tc := range []struct{ asked, cpus, jobs, want int }{
		{1, 8, 100_000, 1}, // one asked is one, where the default would be 8
		{2, 8, 100_000, 2},
		{3, 1, 100_000, 3}, // asked beyond the CPUs: as asked
		{0, 8, 100_000, 8}, // the default
		{-1, 8, 100_000, 8},
		{0, 2, 4_000, 2},
		{MaxShards, 8, 100_000, MaxShards},
		{MaxShards + 1, 8, 100_000, MaxShards},
		{5000, 8, 100_000, MaxShards},
		{40, 8, 1, 1}, // never more shards than reservations
		{40, 8, 39, 39},
	} {
		t.Run(fmt.Sprintf("%d asked %d CPUs %d reservations", tc.asked, tc.cpus, tc.jobs), func(t *testing.T) {
			if got := shardCount(tc.asked, tc.cpus, tc.jobs); got != tc.want {
				t.Errorf("shardCount(%d, %d, %d) = %d, want %d", tc.asked, tc.cpus, tc.jobs, got, tc.want)
			}
		})
	}
}
