package taskrouting

import (
	"strconv"
	"unicode/utf8"
)

// The checks below hold request fields to the platform's own limits (the
// request schemas of api/openapi.json, listed in docs/contract.md) before
// anything is sent, so a caller learns of a mistake as a *ParamError
// without a round trip. They are never looser than the platform's: a
// request refused by the platform for a limit is refused here first.

// checkLen checks a string's length in characters (Unicode code points, as
// JSON Schema counts them). The value never appears in the error: some
// strings checked here are secrets.
func checkLen(param, s string, minLen, maxLen int) error {
	n := utf8.RuneCountInString(s)
	switch {
	case n < minLen && minLen == 1:
		return &ParamError{Param: param, Problem: "must not be empty"}
	case n < minLen:
		return &ParamError{Param: param, Problem: "must have at least " + strconv.Itoa(minLen) + " characters"}
	case n > maxLen:
		return &ParamError{Param: param, Problem: "must have at most " + strconv.Itoa(maxLen) + " characters"}
	}
	return nil
}

// checkCount checks the number of items of a list or entries of a map.
func checkCount(param string, n, minItems, maxItems int) error {
	switch {
	case n < minItems && minItems == 1:
		return &ParamError{Param: param, Problem: "must not be empty"}
	case n < minItems:
		return &ParamError{Param: param, Problem: "must have at least " + strconv.Itoa(minItems) + " items"}
	case n > maxItems:
		return &ParamError{Param: param, Problem: "must have at most " + strconv.Itoa(maxItems) + " items"}
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
		return &ParamError{Param: param, Problem: "must be between " + fmtNum(minV) + " and " + fmtNum(maxV)}
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
		return &ParamError{Param: param, Problem: "must be at least " + fmtNum(minV)}
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
	return &ParamError{Param: param, Problem: "must be one of " + joinQuoted(allowed)}
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

// firstError returns the first non-nil error: the checks of one value run
// in field order and the caller hears of the first problem.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
