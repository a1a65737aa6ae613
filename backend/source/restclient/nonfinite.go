package restclient

// NonFiniteToNull rewrites bare NaN, Infinity, -Infinity and +Infinity tokens outside strings
// (which a Java serializer such as Jackson writes when its quoting of non-numeric numbers is
// off, and which are not JSON) to null, so that one odd value does not fail a whole response.
// It returns b itself when there is nothing to rewrite.
func NonFiniteToNull(b []byte) []byte {
	var out []byte // allocated only if something needs rewriting
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			if out != nil {
				out = append(out, ch)
			}
			continue
		}
		if ch == '"' {
			inString = true
		} else if n := nonFiniteToken(b[i:]); n > 0 {
			if out == nil {
				out = append(make([]byte, 0, len(b)), b[:i]...)
			}
			out = append(out, "null"...)
			i += n - 1
			continue
		}
		if out != nil {
			out = append(out, ch)
		}
	}
	if out == nil {
		return b
	}
	return out
}

func nonFiniteToken(b []byte) int {
	for _, tok := range []string{"NaN", "Infinity", "-Infinity", "+Infinity"} {
		if len(b) >= len(tok) && string(b[:len(tok)]) == tok {
			return len(tok)
		}
	}
	return 0
}
