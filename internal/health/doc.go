// Package health judges consumer groups the way LinkedIn's Burrow does:
// from a sliding window of a partition's commits (offset and time) and
// the history of its log end, with no lag threshold to tune.
//
// The evaluation (Evaluate, EvaluateGroup) is pure: the caller hands it
// the observations and the time now. The sources (OffsetsTopic, which
// reads __consumer_offsets, and Sample, which takes the committed offsets
// twice) only gather observations of the same type, so a rule is tested
// once, in a table, whatever produced its input.
//
// The rules follow Burrow's wiki page "Consumer Lag Evaluation Rules"
// (https://github.com/linkedin/Burrow/wiki/Consumer-Lag-Evaluation-Rules)
// and its REWIND status; docs/health.md says each rule and where offsetctl
// differs.
package health
