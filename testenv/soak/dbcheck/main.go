// Command dbcheck runs testenv/soak/check.sql against a cache opened
// read-only and prints each row as KEY|VALUE..., like `sqlite3 -readonly
// -batch` would. testenv/soak.sh uses it when the sqlite3 CLI is missing.
//
//	dbcheck -sql testenv/soak/check.sql DIR/cache.db
//	dbcheck -q "SELECT count(*) FROM checkpoints" DIR/cache.db
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	script := flag.String("sql", "testenv/soak/check.sql", "statements to run, separated by ';' at a line end")
	query := flag.String("q", "", "run this one statement instead of -sql")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: dbcheck [-sql FILE] CACHE.db")
		os.Exit(2)
	}
	var b []byte
	if *query != "" {
		b = []byte(*query + ";")
	} else {
		var err error
		if b, err = os.ReadFile(*script); err != nil {
			fail(err)
		}
	}
	// Read-only, and never the writer's recovery: mode=ro opens without
	// creating or changing anything a killed writer left behind.
	db, err := sql.Open("sqlite3", "file:"+flag.Arg(0)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range statements(string(b)) {
		rows, err := db.Query(stmt)
		if err != nil {
			fail(fmt.Errorf("%s: %w", firstLine(stmt), err))
		}
		cols, _ := rows.Columns()
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				fail(err)
			}
			out := make([]string, len(vals))
			for i, v := range vals {
				out[i] = v.String
			}
			fmt.Println(strings.Join(out, "|"))
		}
		if err := rows.Err(); err != nil {
			fail(err)
		}
		rows.Close()
	}
}

// statements splits a script at semicolons that end a line, dropping comments.
func statements(s string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, cur.String())
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dbcheck:", err)
	os.Exit(1)
}
