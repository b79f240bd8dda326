package zoo_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/idna"

	"github.com/backofflab/backofflab/retry"
)

// retry keys its per-host breakers by the host's ASCII form, which it
// computes itself (it imports only the standard library). net/http dials
// an internationalised host by golang.org/x/net/idna's Lookup.ToASCII: on
// hosts in many scripts, upper case included, both must agree, so that a
// host spelled in Unicode and in Punycode shares one breaker.
func TestRetryHostKeysAgreeWithIDNA(t *testing.T) {
	scripts := [][2]rune{
		{'a', 'z'}, {'A', 'Z'}, {0xe0, 0xfe}, {0xc0, 0xde}, // Latin, Latin-1 letters
		{0x3b1, 0x3c9}, {0x430, 0x44f}, {0x410, 0x42f}, // Greek, Cyrillic
		{0x5d0, 0x5ea}, {0x627, 0x64a}, {0x905, 0x939}, // Hebrew, Arabic, Devanagari
		{0x3041, 0x3093}, {0x30a1, 0x30f3}, {0x4e00, 0x4fff}, {0xac00, 0xad00}, // kana, CJK, Hangul
	}
	g := rand.New(rand.NewPCG(26, 1))
	rt, err := retry.NewTransport(retry.TransportConfig{MaxHosts: retry.MaxHostsLimit})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for range 3000 {
		var labels []string
		for range 1 + g.IntN(3) {
			// One script per label, as IDNA's rules on mixing scripts ask.
			sc := scripts[g.IntN(len(scripts))]
			var b strings.Builder
			for range 1 + g.IntN(12) {
				b.WriteRune(sc[0] + rune(g.IntN(int(sc[1]-sc[0]+1))))
			}
			labels = append(labels, b.String())
		}
		host := strings.Join(labels, ".") + ".example"
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil {
			continue // a name IDNA refuses (a bidi rule, a disallowed letter): net/http dials it as it is
		}
		checked++
		if rt.Breaker("https", host) != rt.Breaker("https", ascii) {
			t.Fatalf("%q and its ASCII form %q have separate breakers", host, ascii)
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d of 3000 generated hosts were valid IDNA names: the test checks too little", checked)
	}
}
