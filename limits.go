package taskrouting

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// The checks below hold request fields to the platform's own limits (the
// request schemas of api/openapi.json, listed in docs/contract.md) before
// anything is sent, so a caller learns of a mistake as a *ParamError
// without a round trip. They are never looser than the platform's: a
// request refused by the platform for a limit is refused here first.
//
// They are of two kinds. A caller's mistake (an empty id or required
// value, an empty required list, parameters that contradict each other) is
// always refused. A limit of today's platform (a maximum length or count,
// a numeric range, a minimum length above one, a value outside today's
// enumeration) is a *ParamError with Limit set, and WithoutLimitChecks
// lets such a value through to the server, whose own 4xx then answers.

// WithoutLimitChecks turns off the client-side checks of the platform's
// limits, at the client or for one call: a value longer, larger or more
// numerous than today's platform accepts, or outside today's enumeration,
// is sent, and the server's answer decides (a 400 is an *APIError as for
// any call). Use it when the platform has raised a limit this version of
// the client does not know yet. The checks of a caller's mistake (an empty
// id, an empty required list) stay on. A *ParamError with Limit set is
// what the option lets through.
//
// Checks run in field order and stop at the first refusal; with the limits
// off, a mistake found after a value over a limit may reach the server
// rather than be refused here.
func WithoutLimitChecks() RequestOption {
	return func(o *config) error {
		o.skipLimits = true
		return nil
	}
}

// admit returns err unless it is the refusal of a platform limit and the
// client or the call turned those checks off (WithoutLimitChecks).
func (c *Client) admit(err error, opts []RequestOption) error {
	var pe *ParamError
	if err == nil || !errors.As(err, &pe) || !pe.Limit {
		return err
	}
	if c.cfg.skipLimits {
		return nil
	}
	if len(opts) == 0 {
		return err
	}
	// The call's own options, applied as the call will apply them; an
	// option that fails here fails the call later with its own error.
	cfg, cfgErr := c.callConfig(opts)
	if cfgErr == nil && cfg.skipLimits {
		return nil
	}
	return err
}

// limitError is the refusal of a platform limit.
func limitError(param, problem string) error {
	return &ParamError{Param: param, Problem: problem, Limit: true}
}

// checkLen checks a string's length in characters (Unicode code points, as
// JSON Schema counts them). The value never appears in the error: some
// strings checked here are secrets.
func checkLen(param, s string, minLen, maxLen int) error {
	n := utf8.RuneCountInString(s)
	switch {
	case n < minLen && minLen == 1:
		return &ParamError{Param: param, Problem: "must not be empty"}
	case n < minLen:
		return limitError(param, "must have at least "+strconv.Itoa(minLen)+" characters")
	case n > maxLen:
		return limitError(param, "must have at most "+strconv.Itoa(maxLen)+" characters")
	}
	return nil
}

// checkCount checks the number of items of a list or entries of a map.
func checkCount(param string, n, minItems, maxItems int) error {
	switch {
	case n < minItems && minItems == 1:
		return &ParamError{Param: param, Problem: "must not be empty"}
	case n < minItems:
		return limitError(param, "must have at least "+strconv.Itoa(minItems)+" items")
	case n > maxItems:
		return limitError(param, "must have at most "+strconv.Itoa(maxItems)+" items")
	}
	return nil
}

// checkStrings checks a list's length and the length of each item.
func checkStrings(param string, items []string, minItems, maxItems, minLen, maxLen int) error {
	if err := checkCount(param, len(items), minItems, maxItems); err != nil {
		return err
	}
	for i, s := range items {
		if err := checkLen(param+"["+strconv.Itoa(i)+"]", s, minLen, maxLen); err != nil {
			return err
		}
	}
	return nil
}

// checkRange checks min <= v <= max.
func checkRange(param string, v, minV, maxV float64) error {
	if v < minV || v > maxV {
		return limitError(param, "must be between "+fmtNum(minV)+" and "+fmtNum(maxV))
	}
	return nil
}

// checkOptRange is checkRange for an optional field; nil passes.
func checkOptRange(param string, v *float64, minV, maxV float64) error {
	if v == nil {
		return nil
	}
	return checkRange(param, *v, minV, maxV)
}

// checkOptMin checks an optional field against a lower bound; nil passes.
func checkOptMin(param string, v *float64, minV float64) error {
	if v != nil && *v < minV {
		return limitError(param, "must be at least "+fmtNum(minV))
	}
	return nil
}

// checkOneOf checks an optional enumerated string; "" passes (left out).
func checkOneOf(param, v string, allowed ...string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return limitError(param, "must be one of "+joinQuoted(allowed))
}

// checkGeo checks a latitude, longitude and distance triple.
func checkGeo(prefix string, lat, lon, dist *float64, distName string) error {
	if err := checkOptRange(prefix+".Latitude", lat, -90, 90); err != nil {
		return err
	}
	if err := checkOptRange(prefix+".Longitude", lon, -180, 180); err != nil {
		return err
	}
	return checkOptMin(prefix+"."+distName, dist, 0)
}

// firstError returns the first caller's mistake among errs, else the first
// refusal of a limit, else nil: the checks of one value run in field order
// and the caller hears of the first problem, a mistake before a limit so
// that WithoutLimitChecks cannot let a mistake through behind a limit.
func firstError(errs ...error) error {
	var limit error
	for _, err := range errs {
		var pe *ParamError
		switch {
		case err == nil:
		case errors.As(err, &pe) && pe.Limit:
			if limit == nil {
				limit = err
			}
		default:
			return err
		}
	}
	return limit
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func joinQuoted(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}
