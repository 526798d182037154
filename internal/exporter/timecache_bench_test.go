package exporter

import (
	"runtime"
	"testing"
)

// BenchmarkTimeCacheRound looks up a fleet's 500,000 cached positions
// (500 groups x 1,000 partitions of one topic, as exporter_tail.sh's
// idle groups) once per round, as fillTimeLag does, a GC per round
// included (the cache lives across rounds: its scan is part of its cost).
func BenchmarkTimeCacheRound(b *testing.B) {
	var c timeCache
	c.begin()
	for g := range int64(500) {
		for p := range int32(1000) {
			c.put(timeKey{"tail-bench", p, g*1000 + int64(p)}, g)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		c.begin()
		for g := range int64(500) {
			for p := range int32(1000) {
				if _, ok := c.get(timeKey{"tail-bench", p, g*1000 + int64(p)}); !ok {
					b.Fatal("miss")
				}
			}
		}
		runtime.GC()
	}
}
