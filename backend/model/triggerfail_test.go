package model

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// onceEach is one failure of each of n reasons, r1 at 1 ms to rn at n ms, and the groups they
// make when all are kept: one each, in that order (equal counts, the earliest first).
func onceEach(n int64) ([]TriggerFailure, []TriggerFailureReason) {
	var fs []TriggerFailure
	var want []TriggerFailureReason
	for i := int64(1); i <= n; i++ {
		r := fmt.Sprint("r", i)
		fs = append(fs, TriggerFailure{AtMs: i, Reason: r, Message: r + "."})
		want = append(want, TriggerFailureReason{Reason: r, Count: 1, FirstMs: i, LastMs: i, Example: r + "."})
	}
	return fs, want
}

func TestGroupTriggerFailures(t *testing.T) {
	five, fiveGroups := onceEach(5)
	f := func(at int64, reason, task string) TriggerFailure {
		return TriggerFailure{AtMs: at, Reason: reason, Task: task, Message: reason + " (" + task + ")"}
	}
	for _, tc := range []struct {
		name  string
		fs    []TriggerFailure
		since int64
		want  []TriggerFailureReason
	}{
		{name: "none", want: nil},
		{name: "by reason, the most frequent first, the latest as example",
			fs: []TriggerFailure{f(10, "b", "x"), f(20, "a", "s1"), f(30, "a", "s2"), f(40, "b", "y"), f(50, "a", "")},
			want: []TriggerFailureReason{
				{Reason: "a", Count: 3, FirstMs: 20, LastMs: 50, Example: "a ()"},
				{Reason: "b", Count: 2, FirstMs: 10, LastMs: 40, Task: "y", Example: "b (y)"},
			}},
		{name: "equal counts: the earliest first", fs: []TriggerFailure{f(30, "late", ""), f(10, "early", "")},
			want: []TriggerFailureReason{
				{Reason: "early", Count: 1, FirstMs: 10, LastMs: 10, Example: "early ()"},
				{Reason: "late", Count: 1, FirstMs: 30, LastMs: 30, Example: "late ()"},
			}},
		{name: "before since left out, an unknown time kept", since: 25,
			fs:   []TriggerFailure{f(10, "a", ""), f(0, "a", "u"), f(30, "a", "")},
			want: []TriggerFailureReason{{Reason: "a", Count: 2, FirstMs: 30, LastMs: 30, Example: "a ()"}}},
		{name: "five reasons are kept", fs: five, want: fiveGroups},
		{name: "beyond five, the least frequent are summed as other reasons",
			fs: []TriggerFailure{f(1, "r1", ""), f(2, "r1", ""), f(3, "r2", ""), f(4, "r2", ""), f(5, "r3", ""), f(6, "r3", ""),
				f(7, "r4", ""), f(8, "r4", ""), f(9, "r5", ""), f(10, "r6", "t6"), f(11, "r7", "")},
			want: []TriggerFailureReason{
				{Reason: "r1", Count: 2, FirstMs: 1, LastMs: 2, Example: "r1 ()"},
				{Reason: "r2", Count: 2, FirstMs: 3, LastMs: 4, Example: "r2 ()"},
				{Reason: "r3", Count: 2, FirstMs: 5, LastMs: 6, Example: "r3 ()"},
				{Reason: "r4", Count: 2, FirstMs: 7, LastMs: 8, Example: "r4 ()"},
				{Reason: "", Count: 3, FirstMs: 9, LastMs: 11, Example: "r7 ()"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GroupTriggerFailures(tc.fs, tc.since); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestGroupTriggerFailuresClipsLongText(t *testing.T) {
	long := strings.Repeat("é", 600) // 1,200 bytes
	got := GroupTriggerFailures([]TriggerFailure{{AtMs: 1, Reason: long, Message: long}}, 0)
	if len(got) != 1 || len(got[0].Reason) > maxTriggerFailureText+len("…") || !strings.HasSuffix(got[0].Example, "é…") {
		t.Errorf("got %d bytes of reason, example ending %q", len(got[0].Reason), got[0].Example[len(got[0].Example)-8:])
	}
}
