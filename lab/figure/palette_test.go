package figure

import (
	"image/color"
	"testing"
)

func TestRGBAColor(t *testing.T) {
	for _, c := range []struct {
		in   color.Color
		want string
	}{
		{color.NRGBA{0xE6, 0x9F, 0x00, 0xFF}, "rgba(230,159,0,1)"},
		{color.NRGBA{0, 0, 0, 0}, "rgba(0,0,0,0)"},
		{color.NRGBA{10, 20, 30, 0x40}, "rgba(10,20,30,0.251)"},
		{color.RGBA{0x80, 0, 0, 0x80}, "rgba(255,0,0,0.502)"}, // premultiplied in, straight out
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := RGBA(c.in); got != c.want {
				t.Errorf("RGBA(%v) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestHexAndColor(t *testing.T) {
	if got := Hex(Color(1)); got != "#e69f00" {
		t.Errorf("Hex(Color(1)) = %q, want #e69f00", got)
	}
	if Color(-1) != Palette[0] || Color(len(Palette)) != Palette[0] {
		t.Error("Color does not wrap around the palette")
	}
}
