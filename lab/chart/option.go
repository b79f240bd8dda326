package chart

// The echarts option object of the figures of this package, as typed
// structs: the part of echarts' option reference
// (https://echarts.apache.org/en/option.html) the figures set.
// encoding/json encodes them as echarts reads them.

// echartsOption is a figure's option object.
type echartsOption struct {
	Animation bool          `json:"animation"`
	Color     []string      `json:"color"`
	Title     titleOpt      `json:"title"`
	Tooltip   tooltipOpt    `json:"tooltip"`
	Legend    legendOpt     `json:"legend"`
	Grid      gridOpt       `json:"grid"`
	DataZoom  []dataZoomOpt `json:"dataZoom"`
	XAxis     []axisOpt     `json:"xAxis"`
	YAxis     []axisOpt     `json:"yAxis"`
	Series    []seriesOpt   `json:"series"`
}

type titleOpt struct {
	Text string `json:"text,omitempty"`
	Left string `json:"left"`
}

type tooltipOpt struct {
	Show    bool   `json:"show"`
	Trigger string `json:"trigger"` // "axis" or "item"
}

type legendOpt struct {
	Show bool   `json:"show"`
	Top  int    `json:"top"`
	Type string `json:"type"`
}

// gridOpt is the room, in pixels, around the plot area.
type gridOpt struct {
	Left   int `json:"left"`
	Right  int `json:"right"`
	Top    int `json:"top"`
	Bottom int `json:"bottom"`
}

type dataZoomOpt struct {
	Type       string `json:"type"` // "inside" or "slider"
	XAxisIndex int    `json:"xAxisIndex"`
	Height     int    `json:"height,omitempty"`
	Bottom     int    `json:"bottom,omitempty"`
}

type axisOpt struct {
	Type         string        `json:"type"` // "category", "value" or "log"
	Name         string        `json:"name,omitempty"`
	NameLocation string        `json:"nameLocation,omitempty"`
	NameGap      int           `json:"nameGap,omitempty"`
	Min          *float64      `json:"min,omitempty"`
	Max          float64       `json:"max,omitempty"` // zero: echarts chooses
	Data         []string      `json:"data,omitempty"`
	AxisLabel    *axisLabelOpt `json:"axisLabel,omitempty"`
}

type axisLabelOpt struct {
	HideOverlap bool `json:"hideOverlap"`
}

type seriesOpt struct {
	Type string `json:"type"` // "bar", "line" or "scatter"
	Name string `json:"name,omitempty"`
	// Data is []float64 (one bar per category) or [][2]float64 (x, y points).
	Data           any           `json:"data"`
	Stack          string        `json:"stack,omitempty"`
	BarCategoryGap string        `json:"barCategoryGap,omitempty"`
	Large          bool          `json:"large,omitempty"`
	ShowSymbol     *bool         `json:"showSymbol,omitempty"`
	Symbol         string        `json:"symbol,omitempty"`
	SymbolSize     int           `json:"symbolSize,omitempty"`
	Step           string        `json:"step,omitempty"`
	MarkLine       *markLineOpt  `json:"markLine,omitempty"`
	MarkArea       *markAreaOpt  `json:"markArea,omitempty"`
	MarkPoint      *markPointOpt `json:"markPoint,omitempty"`
}

type markLineOpt struct {
	Symbol    [2]string  `json:"symbol"`
	Silent    bool       `json:"silent"`
	LineStyle styleOpt   `json:"lineStyle"`
	Data      []markItem `json:"data"`
}

type markAreaOpt struct {
	Silent    bool          `json:"silent"`
	ItemStyle styleOpt      `json:"itemStyle"`
	Label     labelOpt      `json:"label"`
	Data      [][2]markItem `json:"data"` // from, to
}

type markPointOpt struct {
	Symbol     string     `json:"symbol"`
	SymbolSize int        `json:"symbolSize"`
	Silent     bool       `json:"silent"`
	Label      labelOpt   `json:"label"`
	Data       []markItem `json:"data"`
}

// markItem is one mark line (XAxis or YAxis), one end of a mark area
// (XAxis) or one mark point (Coord, Value).
type markItem struct {
	Name      string    `json:"name,omitempty"`
	XAxis     *float64  `json:"xAxis,omitempty"`
	YAxis     *float64  `json:"yAxis,omitempty"`
	Coord     []float64 `json:"coord,omitempty"`
	Value     string    `json:"value,omitempty"`
	Label     *labelOpt `json:"label,omitempty"`
	ItemStyle *styleOpt `json:"itemStyle,omitempty"`
}

type labelOpt struct {
	Show      *bool  `json:"show,omitempty"`
	Position  string `json:"position,omitempty"`
	Formatter string `json:"formatter,omitempty"`
	Color     string `json:"color,omitempty"`
	Align     string `json:"align,omitempty"` // "left" or "right" of the anchor; centred if empty
}

type styleOpt struct {
	Type  string `json:"type,omitempty"`
	Color string `json:"color,omitempty"`
	Width int    `json:"width,omitempty"`
}
