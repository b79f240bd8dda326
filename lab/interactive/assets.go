package interactive

// Where the Jupyter server serves the echarts script. The set-up copies
// node_modules/echarts/dist/echarts.min.js (echarts v5, the major version
// go-echarts v2 targets) to notebooks/assets/; see [AssetPaths] and [LoaderJS].
const (
	// EChartsAssetName is the file name of the echarts script.
	EChartsAssetName = "echarts.min.js"
	// NotebookAssetsDir is the folder, beside the lessons in notebooks/,
	// that holds the script (notebooks/assets/echarts.min.js), served by
	// JupyterLab and Notebook 7 under files/.
	NotebookAssetsDir = "assets"
	// StartCommand is what the fragment tells the reader to run when the
	// script cannot be loaded.
	StartCommand = "scripts/start"
)

// AssetPaths returns the URL paths, relative to the Jupyter base URL, at
// which the fragment looks for the echarts script, in the order it tries
// them: the file server of JupyterLab / Notebook 7 rooted at the repository
// (as scripts/start runs it), then the same server rooted at notebooks/.
func AssetPaths() []string {
	return []string{
		"files/notebooks/" + NotebookAssetsDir + "/" + EChartsAssetName,
		"files/" + NotebookAssetsDir + "/" + EChartsAssetName,
	}
}

// SiteAssetPath is the path, relative to the page, at which the fragment
// looks for the echarts script last: where the static HTML edition of the
// course (scripts/build-site) puts it beside its pages, so that a page
// opened from disk or from any static file server finds it.
const SiteAssetPath = NotebookAssetsDir + "/" + EChartsAssetName

// LoaderJS returns the JavaScript source of the function
//
//	backofflabLoadECharts(done, fail)
//
// that every fragment embeds: the file web/loader.js of this package. It
// reads the candidate URLs from the variable assets that the fragment
// declares around it, {"paths": [AssetPaths]..., "site": [SiteAssetPath]}.
// It finds the Jupyter base URL (the "baseUrl" of <script
// id="jupyter-config-data"> in JupyterLab and Notebook 7, "/" otherwise)
// and tries base + each of [AssetPaths], then [SiteAssetPath] relative to
// the page (that one first in a page without jupyter-config-data, such as
// the static site). It calls done(window.echarts) if echarts is already
// loaded; else it adds a <script> for the first candidate and, on error,
// for the next (hiding a stray AMD define meanwhile, so that echarts sets
// window.echarts), then calls done or fail(reason). Charts waiting at the
// same time share one load.
//
// done and fail are always called asynchronously.
func LoaderJS() string { return loaderJS }
