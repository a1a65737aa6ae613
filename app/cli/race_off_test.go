//go:build !race

package cli

// raceScale: see race_on_test.go.
const raceScale = 1
