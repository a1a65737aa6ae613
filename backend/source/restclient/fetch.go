package restclient

import (
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/go-resty/resty/v2"
)

// BodyTooLargeError is an answer whose body is over the limit; its text says the size (when
// the answer declared it) and the limit.
type BodyTooLargeError struct {
	msg string
}

func (e *BodyTooLargeError) Error() string { return e.msg }

// fetch GETs path (with query, if any) through req and reads the whole body, refusing more than
// maxBody bytes; it records the status and the bytes read in info. A request that got no answer
// fails with the transport's error, a body that could not be read with "read body: ..." wrapping
// the cause, a body over maxBody with a *BodyTooLargeError. The status is not judged.
func fetch(req *resty.Request, path string, query url.Values, maxBody int64, info *RequestInfo) ([]byte, error) {
	if len(query) > 0 {
		req.SetQueryParamsFromValues(query)
	}
	resp, err := req.Get(path)
	if err != nil {
		return nil, err
	}
	body := resp.RawBody()
	defer body.Close()
	info.Status = resp.StatusCode()
	if cl := resp.RawResponse.ContentLength; cl > maxBody {
		return nil, &BodyTooLargeError{fmt.Sprintf("response body of %d bytes exceeds the %d byte limit (MaxBodyBytes)", cl, maxBody)}
	}
	data, err := io.ReadAll(io.LimitReader(body, maxBody+1))
	info.Bytes = int64(len(data))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(data)) > maxBody {
		return nil, &BodyTooLargeError{fmt.Sprintf("response body exceeds the %d byte limit (MaxBodyBytes)", maxBody)}
	}
	return data, nil
}

// PathQuery is path with its query, as errors name a request.
func PathQuery(path string, query url.Values) string {
	if len(query) > 0 {
		return path + "?" + query.Encode()
	}
	return path
}

// Report hands a finished request to hook (a source's OnRequest), when there is one, with its
// duration since start and its error.
func Report(hook func(RequestInfo), info RequestInfo, start time.Time, err error) {
	if hook != nil {
		info.Duration, info.Err = time.Since(start), err
		hook(info)
	}
}
