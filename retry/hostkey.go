package retry

import (
	"net"
	"strings"
	"unicode/utf8"
)

// hostKey is the per-host key "scheme://host[:port]" a Transport keeps a
// breaker and a budget under, and names a host by in its events: the host
// as a client connects to it. Scheme and host are in lower case; the host
// has no trailing dot and IPv6 brackets only around an address; an
// internationalised name is in its ASCII form (Punycode labels, as
// net/http dials it); the port loses its leading zeros (net dials
// example.com:080 as port 80) and is left out when it is the scheme's
// default.
//
// The ASCII form here lower-cases and Punycode-encodes each label, and maps
// the ideographic full stops to dots. It does not apply Unicode
// normalisation (NFC) or the rest of IDNA's mapping: two spellings of a
// name that differ only there get separate breakers. A host that is not
// valid UTF-8 is kept as it is.
func hostKey(scheme, host string) string {
	scheme = strings.ToLower(scheme)
	h, port, err := net.SplitHostPort(host)
	if err != nil { // no port
		h, port = host, ""
	}
	h = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ".")
	h, port = asciiHost(h), strings.ToLower(port)
	if digits(port) {
		if port = strings.TrimLeft(port, "0"); port == "" {
			port = "0" // all zeros: port 0 itself
		}
	}
	if port == "" || port == "80" && scheme == "http" || port == "443" && scheme == "https" {
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		return scheme + "://" + h
	}
	return scheme + "://" + net.JoinHostPort(h, port)
}

// asciiHost returns host in lower case, with each label that is not ASCII
// in its Punycode form ("xn--" and the encoding, RFC 3492), as IDNA's
// ToASCII would for a name already in normal form.
func asciiHost(host string) string {
	ascii := true
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(host)
	}
	if !utf8.ValidString(host) {
		return host
	}
	// IDNA treats the ideographic full stop and its half- and full-width
	// forms as dots.
	host = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(strings.ToLower(host))
	labels := strings.Split(host, ".")
	for i, l := range labels {
		if enc, ok := punycode(l); ok {
			labels[i] = "xn--" + enc
		}
	}
	return strings.Join(labels, ".")
}

// Punycode's parameters (RFC 3492, section 5).
const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
)

// punycode returns the Punycode encoding of label (RFC 3492, section 6.3)
// and true, or false if the label is all ASCII (it needs none) or too long
// for the encoding's arithmetic (no DNS label is).
func punycode(label string) (string, bool) {
	runes := []rune(label)
	if len(runes) > 1000 {
		return "", false
	}
	var out []byte
	for _, r := range runes {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
		}
	}
	basic := len(out)
	if basic == len(runes) {
		return "", false
	}
	if basic > 0 {
		out = append(out, '-')
	}
	const most = 1 << 30 // far beyond any label; keeps the sums below from overflowing
	n, delta, bias := rune(pcInitialN), 0, pcInitialBias
	for h := basic; h < len(runes); {
		m := rune(utf8.MaxRune + 1)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		if int(m-n) > (most-delta)/(h+1) {
			return "", false
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
			}
			if r != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := k - bias
				if t < pcTMin {
					t = pcTMin
				} else if t > pcTMax {
					t = pcTMax
				}
				if q < t {
					break
				}
				out = append(out, pcDigit(t+(q-t)%(pcBase-t)))
				q = (q - t) / (pcBase - t)
			}
			out = append(out, pcDigit(q))
			bias = pcAdapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return string(out), true
}

// pcDigit is the Punycode digit for d in [0, 36): a to z, then 0 to 9.
func pcDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

// pcAdapt is Punycode's bias adaptation (RFC 3492, section 6.1).
func pcAdapt(delta, points int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / points
	k := 0
	for delta > (pcBase-pcTMin)*pcTMax/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}
