package app

import "checkpoint-explorer/backend/export"

// Export formats besides the capture (docs/interop.md).
const (
	FormatCapture  = export.FormatCapture
	FormatPerfetto = export.FormatPerfetto
	FormatOTLP     = export.FormatOTLP
	FormatCSV      = export.FormatCSV
)
