package jaeger

import (
	"bytes"
	"encoding/json"
	"strconv"

	"checkpoint-explorer/backend/interop"
)

// Jaeger's query JSON (GET /api/traces; model/json in Jaeger): traces of spans whose times are
// microseconds and whose attributes are typed tags.
type tracesAnswer struct {
	Data   []jTrace `json:"data"`
	Errors []struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	} `json:"errors"`
}

type jTrace struct {
	TraceID   string              `json:"traceID"`
	Spans     []jSpan             `json:"spans"`
	Processes map[string]jProcess `json:"processes"`
}

type jSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime int64  `json:"startTime"` // µs
	Duration  int64  `json:"duration"`  // µs
	Tags      []jTag `json:"tags"`
	ProcessID string `json:"processID"`
}

type jProcess struct {
	ServiceName string `json:"serviceName"`
	Tags        []jTag `json:"tags"`
}

type jTag struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// The tag Jaeger stores an OpenTelemetry span's instrumentation scope under.
const tagScopeName = "otel.scope.name"

// decodeAnswer parses a GET /api/traces body.
func decodeAnswer(data []byte) (tracesAnswer, error) {
	var a tracesAnswer
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		return a, err
	}
	return a, nil
}

// toOTLP turns Jaeger's traces into OTLP JSON spans: a resource per process (its service.name
// and tags), a scope per otel.scope.name, times in nanoseconds, a CHILD_OF reference as the
// parent, tags as typed attributes.
func toOTLP(traces []jTrace) ([]byte, error) {
	var f interop.OTLPFile
	for ti := range traces {
		tr := &traces[ti]
		byProc := map[string]*interop.OTLPResourceSpans{}
		var order []string
		for si := range tr.Spans {
			sp := &tr.Spans[si]
			rs, ok := byProc[sp.ProcessID]
			if !ok {
				rs = &interop.OTLPResourceSpans{}
				if p, ok := tr.Processes[sp.ProcessID]; ok {
					rs.Resource.Attributes = append(rs.Resource.Attributes, stringAttr("service.name", p.ServiceName))
					for _, t := range p.Tags {
						if a, ok := attrOf(t); ok {
							rs.Resource.Attributes = append(rs.Resource.Attributes, a)
						}
					}
				}
				byProc[sp.ProcessID] = rs
				order = append(order, sp.ProcessID)
			}
			o := interop.OTLPSpan{TraceID: sp.TraceID, SpanID: sp.SpanID, Name: sp.OperationName, Kind: 1,
				StartNano: strconv.FormatInt(sp.StartTime*1000, 10),
				EndNano:   strconv.FormatInt((sp.StartTime+sp.Duration)*1000, 10)}
			if o.TraceID == "" {
				o.TraceID = tr.TraceID
			}
			for _, r := range sp.References {
				if r.RefType == "CHILD_OF" {
					o.ParentSpanID = r.SpanID
					break
				}
			}
			scope := ""
			for _, t := range sp.Tags {
				if t.Key == tagScopeName {
					_ = json.Unmarshal(t.Value, &scope)
					continue
				}
				if a, ok := attrOf(t); ok {
					o.Attributes = append(o.Attributes, a)
				}
			}
			var ss *interop.OTLPScopeSpans
			for i := range rs.ScopeSpans {
				if rs.ScopeSpans[i].Scope.Name == scope {
					ss = &rs.ScopeSpans[i]
				}
			}
			if ss == nil {
				rs.ScopeSpans = append(rs.ScopeSpans, interop.OTLPScopeSpans{})
				ss = &rs.ScopeSpans[len(rs.ScopeSpans)-1]
				ss.Scope.Name = scope
			}
			ss.Spans = append(ss.Spans, o)
		}
		for _, p := range order {
			f.ResourceSpans = append(f.ResourceSpans, *byProc[p])
		}
	}
	if f.ResourceSpans == nil {
		f.ResourceSpans = []interop.OTLPResourceSpans{}
	}
	return json.Marshal(f)
}

// attrOf maps a Jaeger tag to an OTLP attribute; int64 values stay exact (as OTLP JSON's
// strings). Binary tags are left out.
func stringAttr(k, v string) interop.OTLPAttr {
	return interop.OTLPAttr{Key: k, Value: interop.OTLPValue{String: &v}}
}

func attrOf(t jTag) (interop.OTLPAttr, bool) {
	a := interop.OTLPAttr{Key: t.Key}
	switch t.Type {
	case "string", "":
		var s string
		if json.Unmarshal(t.Value, &s) != nil {
			return a, false
		}
		a.Value.String = &s
	case "int64":
		n := bytes.TrimSpace(t.Value)
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return a, false
		}
		raw := json.RawMessage(strconv.Quote(string(n)))
		a.Value.Int = &raw
	case "float64":
		var v float64
		if json.Unmarshal(t.Value, &v) != nil {
			return a, false
		}
		a.Value.Double = &v
	case "bool":
		var v bool
		if json.Unmarshal(t.Value, &v) != nil {
			return a, false
		}
		a.Value.Bool = &v
	default:
		return a, false
	}
	return a, true
}
