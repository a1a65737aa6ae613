//go:build race

package cli

// raceScale divides the sizes of the large captures under the race
// detector, whose writes and imports are several times slower: the imports
// last about as long, the capture is written in a fraction of the time.
const raceScale = 4
