//go:build classroom

// Run with: go test -tags classroom ./internal/classroom (as root; scripts/test does).

package classroom

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exercises are the assignment's notebooks and the points of each.
var exercises = map[string]float64{"waves-overload": 3, "waves-jitter": 2, "waves-base": 3}

// ipynb is a notebook as JSON, kept whole so that writing it back changes only what we change.
type ipynb map[string]any

func readIpynb(t *testing.T, path string) ipynb {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb ipynb
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

func (nb ipynb) cells() []map[string]any {
	var out []map[string]any
	for _, c := range nb["cells"].([]any) {
		out = append(out, c.(map[string]any))
	}
	return out
}

func source(c map[string]any) string {
	switch s := c["source"].(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			b.WriteString(l.(string))
		}
		return b.String()
	}
	return ""
}

// grading returns the cell's nbgrader metadata (grade_id, solution, grade), if any.
func grading(c map[string]any) (id string, solution, graded bool) {
	md, _ := c["metadata"].(map[string]any)
	g, _ := md["nbgrader"].(map[string]any)
	if g == nil {
		return "", false, false
	}
	id, _ = g["grade_id"].(string)
	solution, _ = g["solution"].(bool)
	graded, _ = g["grade"].(bool)
	return id, solution, graded
}

// nbgraderRoundTrip: generate the learner's version, release, fetch and submit as a learner who
// solved everything (A) and one who solved nothing (B), collect, autograde with the hidden
// checks, generate feedback, export the grades.
func nbgraderRoundTrip(t *testing.T, c *class) {
	a, b := c.learners[0], c.learners[1]
	inst := c.instructor
	course := filepath.Join("/home", inst, "course")
	solutions := filepath.Join(c.repo, "exercises", "solutions", "notebooks")

	c.as(t, inst, "instructor", course, "nbgrader", "generate_assignment", "waves", "--force")
	// The release is the learner's version the repository keeps (exercises/notebooks).
	for name := range exercises {
		got := readIpynb(t, filepath.Join(course, "release", "waves", name+".ipynb")).cells()
		want := readIpynb(t, filepath.Join(c.repo, "exercises", "notebooks", name+".ipynb")).cells()
		if len(got) != len(want) {
			t.Fatalf("release %s: %d cells, exercises/notebooks has %d", name, len(got), len(want))
		}
		for i := range got {
			if strings.TrimSpace(source(got[i])) != strings.TrimSpace(source(want[i])) {
				t.Errorf("release %s cell %d differs from exercises/notebooks:\n%s\n--- want ---\n%s", name, i+1, source(got[i]), source(want[i]))
			}
		}
	}
	c.as(t, inst, "instructor", course, "nbgrader", "release_assignment", "waves", "--force")

	for _, u := range []string{a, b} {
		home := filepath.Join("/home", u)
		c.as(t, u, "learner", home, "nbgrader", "fetch_assignment", "waves")
		if u == a { // A writes every answer: the instructor's answer cells, in the fetched notebooks
			for name := range exercises {
				path := filepath.Join(home, "waves", name+".ipynb")
				nb := readIpynb(t, path)
				answers := map[string]any{}
				for _, cell := range readIpynb(t, filepath.Join(solutions, name+".ipynb")).cells() {
					if id, sol, _ := grading(cell); sol {
						answers[id] = cell["source"]
					}
				}
				for _, cell := range nb.cells() {
					if id, sol, _ := grading(cell); sol {
						cell["source"] = answers[id]
					}
				}
				out, err := json.MarshalIndent(nb, "", " ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.as(t, u, "learner", home, "nbgrader", "submit", "waves")
	}

	c.as(t, inst, "instructor", course, "nbgrader", "collect", "waves")
	c.as(t, inst, "instructor", course, "nbgrader", "autograde", "waves", "--force")
	c.as(t, inst, "instructor", course, "nbgrader", "generate_feedback", "waves", "--force")
	c.as(t, inst, "instructor", course, "nbgrader", "export", "--to", "grades.csv")

	// The hidden checks ran: they are back in the autograded check cells.
	hidden := 0
	for name := range exercises {
		for _, cell := range readIpynb(t, filepath.Join(course, "autograded", a, "waves", name+".ipynb")).cells() {
			if _, _, graded := grading(cell); graded && strings.Contains(source(cell), "Hidden(") {
				hidden++
			}
		}
	}
	if hidden == 0 {
		t.Error("the autograded notebooks' check cells do not contain the hidden checks")
	}

	f, err := os.Open(filepath.Join(course, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("grades.csv: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	total := 0.0
	for _, p := range exercises {
		total += p
	}
	scores := map[string]float64{}
	for _, r := range rows[1:] {
		s, err := strconv.ParseFloat(r[col["score"]], 64)
		if err != nil {
			t.Fatalf("grades.csv: score %q: %v", r[col["score"]], err)
		}
		if m, _ := strconv.ParseFloat(r[col["max_score"]], 64); m != total {
			t.Errorf("grades.csv: max_score %v, want %v", m, total)
		}
		scores[r[col["student_id"]]] = s
	}
	if scores[a] != total {
		t.Errorf("the learner who solved everything scored %v of %v", scores[a], total)
	}
	if s, ok := scores[b]; !ok || s != 0 {
		t.Errorf("the learner who solved nothing scored %v (listed: %v), want 0", s, ok)
	}
	// B's feedback says in plain words what is not written yet.
	for name := range exercises {
		html, err := os.ReadFile(filepath.Join(course, "feedback", b, "waves", name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(html), "not written yet") {
			t.Errorf("B's feedback on %s does not say what is not written yet", name)
		}
	}
}
