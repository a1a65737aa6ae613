package flinkenv

import (
	"strings"
	"testing"
)

func TestFromVars(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    Env
		wantErr string
	}{
		{
			name: "start.sh output",
			out: "FLINK_REST_URL=http://127.0.0.1:8081/\nFLINK_JM_PROM_PORT=9249\nFLINK_TM_PROM_PORT=9250\n" +
				"FLINK_VERSION=2.3.0\nFLINK_RUN_DIR=/r\nFLINK_LOG_DIR=/r/log\n",
			want: Env{RESTURL: "http://127.0.0.1:8081", JMPromPort: 9249, TMPromPort: 9250,
				JMPromURL: "http://127.0.0.1:9249/metrics", TMPromURL: "http://127.0.0.1:9250/metrics",
				Version: "2.3.0", RunDir: "/r", LogDir: "/r/log"},
		},
		{
			name: "env.sh output with exports, no reporters",
			out:  "export FLINK_REST_URL=http://127.0.0.1:1\n",
			want: Env{RESTURL: "http://127.0.0.1:1"},
		},
		{name: "no url", out: "FLINK_VERSION=2.3.0\n", wantErr: "no FLINK_REST_URL"},
		{name: "bad port", out: "FLINK_REST_URL=http://h\nFLINK_TM_PROM_PORT=x\n", wantErr: `FLINK_TM_PROM_PORT="x" is not a port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fromVars(parseEnv(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}
