package report_test

import (
	"os"

	"github.com/offsetctl/offsetctl/report"
)

// Rows in each format: the table aligns the columns, CSV and JSON keep
// the exact values.
func Example() {
	header := []string{"TOPIC", "PARTITION", "LAG"}
	lag := int64(42)
	rows := [][]string{
		{"orders", report.I64(0), report.Opt(&lag)},
		{"orders", report.I64(1), report.Opt(nil)},
	}
	if err := report.Rows(os.Stdout, report.Table, header, rows); err != nil {
		panic(err)
	}
	if err := report.Rows(os.Stdout, report.CSV, header, rows); err != nil {
		panic(err)
	}
	if err := report.WriteJSON(os.Stdout, map[string]any{"topic": "orders", "lag": lag}); err != nil {
		panic(err)
	}
	// Output:
	// TOPIC   PARTITION  LAG
	// orders  0          42
	// orders  1          -
	// TOPIC,PARTITION,LAG
	// orders,0,42
	// orders,1,-
	// {
	//   "lag": 42,
	//   "topic": "orders"
	// }
}
