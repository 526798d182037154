package exporter

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The shipped dashboard and alert rules read only series the exporter
// writes (a renamed family would leave a panel empty or an alert silent),
// and the dashboard is Grafana JSON with a query in every panel.
func TestDeployNamesExist(t *testing.T) {
	known := map[string]bool{}
	for _, f := range lagFamilies {
		known[f.name] = true
	}
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, d := range healthDescs {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		known[m[1]] = true
	}
	metric := regexp.MustCompile(`\b(?:kafka|offsetctl)_[a-z_]+\b`)
	for _, file := range []string{"../../deploy/prometheus/alerts.yml", "../../deploy/grafana/offsetctl.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var exprs []string
		if strings.HasSuffix(file, ".json") {
			exprs = dashboardExprs(t, data)
		} else {
			exprs = ruleExprs(t, data)
		}
		if len(exprs) < 5 {
			t.Errorf("%s: %d queries, want at least 5", file, len(exprs))
		}
		for _, e := range exprs {
			for _, name := range metric.FindAllString(e, -1) {
				if !known[name] {
					t.Errorf("%s reads %s, which the exporter does not write (in %s)", file, name, e)
				}
			}
		}
	}
}

// ruleExprs returns every rule's expression, read as YAML: an expression
// may span lines (`expr: |`).
func ruleExprs(t *testing.T, data []byte) []string {
	var f struct {
		Groups []struct {
			Rules []struct{ Expr string }
		}
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("rules: %v", err)
	}
	var out []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Expr == "" {
				t.Error("a rule without an expression")
			}
			out = append(out, r.Expr)
		}
	}
	return out
}

// dashboardExprs returns every panel's and variable's query.
func dashboardExprs(t *testing.T, data []byte) []string {
	var d struct {
		Panels []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		}
		Templating struct{ List []struct{ Query any } }
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	var out []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if q, ok := v.Query.(string); ok {
			out = append(out, q)
		}
	}
	return out
}
