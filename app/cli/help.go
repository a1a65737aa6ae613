package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The help every command prints for --help (and `help COMMAND`), on stdout:
// the usage line, what the command does, its subcommands, its flags in
// groups as `--flag VALUE`, the global flags, and examples.

const helpWidth = 100

// groupAnnotation names the heading a flag is listed under in the help.
const groupAnnotation = "checkpoint-explorer/group"

// flagGroup lists the named flags under the heading group in the help; the
// other flags of a command are under "Flags:".
func flagGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, groupAnnotation, []string{group}); err != nil {
			panic(err) // a flag name misspelt in the code
		}
	}
}

// valueNames are the placeholders of the flags' values in the help, by flag
// name (the flags mean the same in every command that has them).
var valueNames = map[string]string{
	"data-dir": "DIR", "format": "FORMAT", "cluster": "NAME", "job": "ID", "from": "TIME", "to": "TIME",
	"out": "FILE", "addr": "HOST:PORT", "token": "TOKEN", "engine": "ENGINE", "url": "URL", "prometheus": "URL",
	"prometheus-every": "DURATION", "auth": "KIND", "user": "USER", "ca-file": "FILE", "job-name-prefix": "PREFIX",
	"duration": "DURATION", "name": "NAME", "requests-per-second": "N", "max-in-flight": "N",
	"jobmanager-log": "MODE", "lane": "NAME=promql:QUERY|NAME=metric:METRIC", "reporter": "URL",
	"prometheus-name": "KEY=NAME", "max-checkpoints": "N", "max-age": "DURATION", "max-db-size": "SIZE", "window": "DURATION",
	"split": "ID", "join": "ID",
}

// flagLine is a flag as the help shows it: "-v, --verbose" or "--out FILE".
func flagLine(f *pflag.Flag) string {
	s := "    "
	if f.Shorthand != "" {
		s = "-" + f.Shorthand + ", "
	}
	s += "--" + f.Name
	if f.Value.Type() == "bool" {
		return s
	}
	v := valueNames[f.Name]
	if v == "" {
		v = strings.ToUpper(f.Value.Type())
	}
	return s + " " + v
}

// flagText is a flag's description with its default, when it has one worth saying.
func flagText(f *pflag.Flag) string {
	text := f.Usage
	switch d := f.DefValue; {
	case d == "" || d == "false" || d == "0" || d == "-1" || d == "[]" || f.Name == "help":
	case f.Value.Type() == "bool":
		text += fmt.Sprintf(" (default %s; --%s=false turns it off)", d, f.Name)
	default:
		text += fmt.Sprintf(" (default %s)", d)
	}
	return text
}

// writeFlags writes fs's visible flags, grouped, under heading for the ungrouped.
func writeFlags(w io.Writer, fs *pflag.FlagSet, heading string, width int) {
	var order []string
	groups := map[string][]*pflag.Flag{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := heading
		if a := f.Annotations[groupAnnotation]; len(a) > 0 {
			g = a[0] + ":"
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], f)
	})
	for _, g := range order {
		fmt.Fprintf(w, "\n%s\n", g)
		for _, f := range groups[g] {
			line := flagLine(f)
			lines := wrap(flagText(f), helpWidth-width-6)
			if len(line) > width {
				fmt.Fprintf(w, "  %s\n", line)
				line = ""
			}
			for i, l := range lines {
				if i > 0 {
					line = ""
				}
				fmt.Fprintf(w, "  %-*s  %s\n", width, line, l)
			}
		}
	}
}

// wrap breaks s into lines of at most n characters, at spaces.
func wrap(s string, n int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len([]rune(line))+1+len([]rune(word)) > n {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return lines
}

// writeHelp writes cmd's help.
func writeHelp(w io.Writer, cmd *cobra.Command) {
	fmt.Fprintln(w, "Usage:")
	if cmd.HasParent() {
		fmt.Fprintf(w, "  %s\n", cmd.UseLine())
	} else {
		fmt.Fprintf(w, "  %s [--data-dir DIR]                 open the desktop window\n", cmd.Name())
		fmt.Fprintf(w, "  %s COMMAND [flags] [ARG...]\n", cmd.Name())
	}
	desc := cmd.Long
	if desc == "" {
		desc = cmd.Short
	}
	if desc != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(desc, "\n"))
	}
	writeSubcommands(w, cmd)
	// The command's own flags, then those every command takes (--help among them).
	local, global := pflag.NewFlagSet("local", pflag.ContinueOnError), pflag.NewFlagSet("global", pflag.ContinueOnError)
	local.SortFlags, global.SortFlags = false, false
	cmd.InheritedFlags().VisitAll(global.AddFlag)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || !cmd.HasParent() {
			global.AddFlag(f)
		} else {
			local.AddFlag(f)
		}
	})
	// One column for the descriptions, after the longest flag (unless it is very long).
	width := 0
	for _, fs := range []*pflag.FlagSet{local, global} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && len(flagLine(f)) <= 34 {
				width = max(width, len(flagLine(f)))
			}
		})
	}
	writeFlags(w, local, "Flags:", width)
	writeFlags(w, global, "Global flags:", width)
	if cmd.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(cmd.Example, "\n"))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nRun '%s COMMAND --help' for a command's flags and examples.\n", cmd.CommandPath())
	}
	if !cmd.HasParent() {
		fmt.Fprint(w, "\nExit status: 0 done, 1 failed, 2 a usage error (unknown command or flag, bad value, missing\n"+
			"argument), 3 jobs needing attention (status), 130 stopped by Ctrl-C (143 by SIGTERM).\n")
	}
}

// writeSubcommands lists cmd's commands, by group where it has groups.
func writeSubcommands(w io.Writer, cmd *cobra.Command) {
	var cmds []*cobra.Command
	width := 0
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			cmds = append(cmds, c)
			width = max(width, len(c.Name()))
		}
	}
	if len(cmds) == 0 {
		return
	}
	list := func(group string) {
		for _, c := range cmds {
			if c.GroupID == group {
				fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name(), c.Short)
			}
		}
	}
	if len(cmd.Groups()) == 0 {
		fmt.Fprintln(w, "\nCommands:")
		list("")
		return
	}
	for _, g := range cmd.Groups() {
		fmt.Fprintf(w, "\n%s\n", g.Title)
		list(g.ID)
	}
}

// dashDashLongFlags accepts the single-dash long flags of the Go flag
// package the CLI used before (-data-dir DIR, -test=false): an argument
// "-NAME" or "-NAME=V" whose NAME is a long flag of any command is read as
// "--NAME". Shorthands (-v, -q, -h) and everything after "--" stay as they are.
func dashDashLongFlags(root *cobra.Command, args []string) []string {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		return args // the shell completion's own requests
	}
	names := map[string]bool{"help": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { names[f.Name] = true }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && names[name] {
			out[i] = "-" + a
		}
	}
	return out
}

// funcValue is a flag whose every use calls set (the repeatable flags:
// --lane, --reporter, --prometheus-name).
type funcValue struct {
	typ string
	set func(string) error
}

func (f funcValue) String() string     { return "" }
func (f funcValue) Set(s string) error { return f.set(s) }
func (f funcValue) Type() string       { return f.typ }

// noArgs refuses positional arguments, naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf(cmd, "%s takes no arguments, got %q", cmd.Name(), args[0])
	}
	return nil
}

// engineFlagGroups ends the help of a command that reaches an engine (capture, clusters add)
// with the groups of the flags they share, authentication and TLS then the request budget, and
// completes the values of --engine, --auth and --jobmanager-log.
func engineFlagGroups(cmd *cobra.Command, fs *pflag.FlagSet) {
	flagGroup(fs, "Authentication and TLS", "auth", "user", "password-stdin", "token-stdin", "ca-file", "insecure")
	flagGroup(fs, "Request budget", "requests-per-second", "max-in-flight")
	completeValues(cmd, "engine", "flink", "seatunnel")
	completeValues(cmd, "auth", "none", "basic", "bearer")
	completeValues(cmd, "jobmanager-log", "auto", "on", "off")
}

// completeValues completes a flag's value from a fixed list.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	if err := cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic(err)
	}
}

// completeCaptureFiles completes positional arguments with capture files.
func completeCaptureFiles(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	return []string{"gz", "jsonl", "json"}, cobra.ShellCompDirectiveFilterFileExt
}
