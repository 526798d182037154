package admin

import (
	"fmt"
	"testing"
)

// UndoScope names exactly the deleted partitions after a partial failure:
// a whole topic when all its planned partitions went, else TOPIC:P,...;
// nothing when all committed partitions were deleted (the whole backup) or
// none was.
func TestDeleteOffsetsUndoScope(t *testing.T) {
	off := int64(3)
	row := func(topic string, q int32, status string, commit bool) DeleteOffsetsRow {
		r := DeleteOffsetsRow{Topic: topic, Partition: q, Status: status}
		if commit {
			r.Current = &off
		}
		return r
	}
	tests := []struct {
		name  string
		rows  []DeleteOffsetsRow
		scope string
		whole bool
	}{
		{"all deleted", []DeleteOffsetsRow{row("a", 0, "deleted", true), row("a", 1, "no commit", false)}, "[]", true},
		{"none deleted", []DeleteOffsetsRow{row("a", 0, "failed", true)}, "[]", false},
		{"partial", []DeleteOffsetsRow{
			row("a", 0, "failed", true), row("a", 1, "failed", true),
			row("b", 0, "deleted", true), row("b", 1, "deleted", true),
			row("c", 0, "deleted", true), row("c", 1, "no commit", false), row("c", 2, "deleted", true),
		}, "[b c:0,2]", false},
	}
	for _, tt := range tests {
		scope, whole := DeleteOffsetsPlan{Group: "g", Partitions: tt.rows}.UndoScope()
		if fmt.Sprint(scope) != tt.scope || whole != tt.whole {
			t.Errorf("%s: UndoScope() = %v, %v; want %s, %v", tt.name, scope, whole, tt.scope, tt.whole)
		}
	}
}
