//go:build classroom

// Run with: go test -tags classroom ./internal/classroom (as root; scripts/test does).

package classroom

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
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

// probeCell is a cell B adds to a submitted notebook: what it can reach when autograde runs it.
const probeCell = `%%%%
fmt.Println("grading as uid", os.Getuid())
fmt.Println("gradebook:", os.WriteFile("/home/%[1]s/course/gradebook.db", []byte("x"), 0o644))
_, err := os.ReadDir("/home/%[1]s/course")
fmt.Println("course:", err)
limits, _ := os.ReadFile("/proc/self/limits")
fmt.Print(string(limits))`

// nbgraderRoundTrip: generate the learner's version, release, fetch and submit as a learner who
// solved everything (A) and one who solved nothing (B), collect, autograde with the hidden
// checks, generate feedback, export the grades. On the way: a submission is open to its learner
// and the instructor only, and autograde runs B's code in the grading sandbox (its own account,
// with limits), never as the instructor.
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
		if u == b { // B adds a cell that probes what autograde's kernel can reach
			path := filepath.Join(home, "waves", "waves-base.ipynb")
			nb := readIpynb(t, path)
			nb["cells"] = append(nb["cells"].([]any), map[string]any{"cell_type": "code", "id": "blt-probe", "metadata": map[string]any{},
				"execution_count": nil, "outputs": []any{}, "source": fmt.Sprintf(probeCell, inst)})
			out, err := json.MarshalIndent(nb, "", " ")
			must(t, err)
			must(t, os.WriteFile(path, out, 0o644))
		}
		c.as(t, u, "learner", home, "nbgrader", "submit", "waves")
	}
	submissionsArePrivate(t, c, a, b)

	c.as(t, inst, "instructor", course, "nbgrader", "collect", "waves")
	c.as(t, inst, "instructor", course, "nbgrader", "autograde", "waves", "--force")
	c.as(t, inst, "instructor", course, "nbgrader", "generate_feedback", "waves", "--force")
	c.as(t, inst, "instructor", course, "nbgrader", "export", "--to", "grades.csv")

	autogradeSandboxed(t, c, b)

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

// submissionsArePrivate: another learner who knows the name of B's submission folder (the server
// logs once printed it) can neither read it nor change it: nbgrader's own submit left it 0777.
func submissionsArePrivate(t *testing.T, c *class, a, b string) {
	inbound := filepath.Join(c.repo, ".cache", "class", c.instance, "exchange", "backofflab", "inbound")
	subs, _ := filepath.Glob(filepath.Join(inbound, b+"+waves+*"))
	if len(subs) != 1 {
		t.Fatalf("B's submissions in %s: %v, want one", inbound, subs)
	}
	nb := filepath.Join(subs[0], "waves-base.ipynb")
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os")
func main() {
	_, err := os.ReadFile(%[1]q)
	fmt.Println("read:", err)
	fmt.Println("add:", os.WriteFile(%[2]q, []byte("{}"), 0o644))
	fmt.Println("replace:", os.Rename(%[2]q, %[1]q))
	fmt.Println("remove:", os.Remove(%[1]q))
}`, nb, filepath.Join(subs[0], "evil.ipynb")))
	if r.Failed || strings.Count(r.Output, "permission denied") != 4 {
		t.Errorf("A reading and changing B's submission (knowing its folder): want all four refused (permission denied), got %+v", r)
	}
}

// autogradeSandboxed: B's probe cell ran in the grading sandbox's account, not the instructor's:
// it could neither write the gradebook nor list the course, and ran within the class's limits.
func autogradeSandboxed(t *testing.T, c *class, b string) {
	var out string
	for _, cell := range readIpynb(t, filepath.Join("/home", c.instructor, "course", "autograded", b, "waves", "waves-base.ipynb")).cells() {
		if strings.Contains(source(cell), "grading as uid") {
			for _, o := range cell["outputs"].([]any) {
				o := o.(map[string]any)
				switch txt := o["text"].(type) {
				case string:
					out += txt
				case []any:
					for _, l := range txt {
						out += l.(string)
					}
				}
			}
		}
	}
	want := map[string]string{"Max cpu time": "10", "Max processes": fmt.Sprint(processes), "Max address space": "2147483648"}
	for _, line := range strings.Split(out, "\n") {
		for k, v := range want {
			if f := strings.Fields(strings.TrimPrefix(line, k)); strings.HasPrefix(line, k) && len(f) > 0 && f[0] == v {
				delete(want, k)
			}
		}
	}
	if !strings.Contains(out, fmt.Sprintf("grading as uid %d\n", c.uid(t, "blg-"+c.instance))) ||
		!strings.Contains(out, "gradebook.db: permission denied") || !strings.Contains(out, "course: open /home/"+c.instructor+"/course: permission denied") || len(want) > 0 {
		t.Errorf("B's probe cell under autograde: want it run as the sandbox account %s, the gradebook and the course refused, and the limits %v; it printed:\n%s",
			"blg-"+c.instance, want, out)
	}
}
