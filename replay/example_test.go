package replay_test

import (
	"fmt"
	"time"

	"github.com/offsetctl/offsetctl/replay"
)

// A resumable replay: parse --from and --until as offsetctl does, ask
// what each partition reads, and decode a line of the jsonl output back
// into the record's exact bytes.
func Example() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	from, err := replay.ParseStart("0=120,2=earliest", now)
	if err != nil {
		panic(err)
	}
	until, err := replay.ParseUntil("end", now)
	if err != nil {
		panic(err)
	}
	for _, p := range from.Partitions() {
		start, _ := from.For(p)
		fmt.Printf("partition %d from %s to %s\n", p, start, until.All)
	}

	line, err := replay.ParseLine([]byte(`{"topic":"orders","partition":0,"offset":120,"timestamp":1764590400000,"key":"k1","value":"aGk=","value_encoding":"base64","headers":[]}`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s/%d@%d key %q value %q\n", line.Topic, line.Partition, line.Offset, line.Key, line.Value)

	// Where a copy stopped, as the next run's --from.
	fmt.Println(replay.FormatResume(map[int32]int64{2: 300, 0: 121}))
	// Output:
	// partition 0 from 120 to end
	// partition 2 from earliest to end
	// orders/0@120 key "k1" value "hi"
	// 0=121,2=300
}
