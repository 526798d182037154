// Package lag is offsetctl's read side: it owns everything that looks at
// consumer groups and never changes a cluster.
//
//   - Gather (gather.go, describe848.go, describestreams.go, share.go):
//     ListGroups, the Describe calls of each group type (classic, KIP-848
//     consumer, KIP-1071 streams, KIP-932 share), OffsetFetch and
//     DescribeShareGroupOffsets, ListOffsets, each under the coordinator
//     retry policy, into a Snapshot;
//   - compute (lag.go): the lag of every row from a Snapshot, pure;
//   - filter and summarize (lagfilter.go): --min-lag, --fail-if
//     thresholds, --by topic views, pure;
//   - stream (lagstream.go): gather and compute in batches of groups;
//   - rates and time lag (rates.go, timelag.go): consume/produce rates
//     over a window, catch-up estimates, and how old the next unread
//     record is;
//   - the shared vocabulary: TP, PartitionMap, Scope (--topic), the
//     topic-name check (CheckTopicName).
//
// The change side (internal/admin) imports this package for what it must
// read (the snapshot a plan is made from, the read-back); this package
// never imports internal/admin. The exporter imports only this package.
package lag
