package waves

import (
	"slices"
	"strings"
	"testing"
)

func TestSeeds(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want []int64
	}{
		{"three", 3, []int64{0, 1, 2}},
		{"zero", 0, nil},
		{"negative", -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Seeds(tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("Seeds(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	if n := len(Seeds(MaxSeeds + 1)); n != MaxSeeds {
		t.Errorf("Seeds(MaxSeeds+1) has %d seeds, want MaxSeeds", n)
	}
}

func TestOverSeedsIsRunEachOverTheSeeds(t *testing.T) {
	c := Lesson().WithJitter(1)
	seeds := Seeds(200)
	s, err := OverSeeds(c, seeds)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := RunEach(c.EachSeed(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	lower := 0
	for _, r := range rs {
		if r.Peak().PerSecond() < 925 {
			lower++
		}
	}
	if s.Own.Peak().PerSecond() != 925 || s.Synced.Peak().PerSecond() != 3000 || s.Lower != lower {
		t.Errorf("own peak %v, synced %v, %d lower; want 925/s, 3000/s, %d lower", s.Own.Peak(), s.Synced.Peak(), s.Lower, lower)
	}
	if got := s.Peak.String(); got != "937 ± 54 (n = 200, 810 to 1115)" {
		t.Errorf("peak spread %s, want the one ExampleRunEach prints", got)
	}
	if s.Cut.N != 200 || s.Total.N != 200 || s.Cut.Max != 3000/s.Peak.Min {
		t.Errorf("cut %v, total %v: want 200 each, the largest cut at the lowest peak", s.Cut, s.Total)
	}
	for _, tc := range []struct {
		name  string
		c     Config
		seeds []int64
		want  string
	}{
		{"no seeds", c, nil, "seeds"},
		{"bad jitter", c.WithJitter(3), seeds, "jitter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := OverSeeds(tc.c, tc.seeds); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming the %s", err, tc.want)
			}
		})
	}
}

func TestSeedTable(t *testing.T) {
	s, err := OverSeeds(Lesson().WithJitter(1), Seeds(200))
	if err != nil {
		t.Fatal(err)
	}
	b := SeedTable(s, s)
	for _, want := range []string{
		"jitter 100%  seed 1513241                  925                              3323",
		"200 seeds                     937 ± 54 (n = 200, 810 to 1115)",
		"lower peak than seed 1513241  89 of 200",
	} {
		if strings.Count(b.String(), want) != 2 {
			t.Errorf("table lacks %q twice:\n%s", want, b.String())
		}
	}
}
