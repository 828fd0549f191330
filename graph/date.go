package graph

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// FuzzyDate is a date known to a year, a month or a day. The zero value means "unknown".
type FuzzyDate struct {
	Year, Month, Day int // Month and Day are 0 when not known
}

// ParseFuzzyDate reads YYYY, YYYY-MM or YYYY-MM-DD. The empty string is the zero FuzzyDate.
func ParseFuzzyDate(s string) (FuzzyDate, error) {
	if s == "" {
		return FuzzyDate{}, nil
	}
	bad := fmt.Errorf("%q is not a date: want YYYY, YYYY-MM or YYYY-MM-DD", s)
	var d FuzzyDate
	var err error
	switch len(s) {
	case 4:
		d.Year, err = strconv.Atoi(s)
	case 7:
		if s[4] != '-' {
			return d, bad
		}
		if d.Year, err = strconv.Atoi(s[:4]); err == nil {
			d.Month, err = strconv.Atoi(s[5:])
		}
	case 10:
		if s[4] != '-' || s[7] != '-' {
			return d, bad
		}
		t, perr := time.Parse("2006-01-02", s)
		if perr != nil {
			return d, bad
		}
		return FuzzyDate{t.Year(), int(t.Month()), t.Day()}, nil
	default:
		return d, bad
	}
	if err != nil || d.Year < 1000 || d.Month < 0 || d.Month > 12 || (len(s) == 7 && d.Month == 0) {
		return FuzzyDate{}, bad
	}
	return d, nil
}

// IsZero reports whether the date is unknown.
func (d FuzzyDate) IsZero() bool { return d.Year == 0 }

// String formats the date as it was written: YYYY, YYYY-MM or YYYY-MM-DD; "" when unknown.
func (d FuzzyDate) String() string {
	switch {
	case d.Year == 0:
		return ""
	case d.Month == 0:
		return fmt.Sprintf("%04d", d.Year)
	case d.Day == 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// FirstDay is the earliest day the date may mean, in days since 1970-01-01.
func (d FuzzyDate) FirstDay() int {
	m, day := max(d.Month, 1), max(d.Day, 1)
	return dayNumber(time.Date(d.Year, time.Month(m), day, 0, 0, 0, 0, time.UTC))
}

// LastDay is the latest day the date may mean, in days since 1970-01-01.
func (d FuzzyDate) LastDay() int {
	switch {
	case d.Month == 0:
		return dayNumber(time.Date(d.Year+1, 1, 1, 0, 0, 0, 0, time.UTC)) - 1
	case d.Day == 0:
		return dayNumber(time.Date(d.Year, time.Month(d.Month)+1, 1, 0, 0, 0, 0, time.UTC)) - 1
	}
	return d.FirstDay()
}

func dayNumber(t time.Time) int { return int(t.Unix() / 86400) }

// Period is a span of days, both ends included, in days since 1970-01-01.
type Period struct{ Start, End int }

// OpenPeriod is all of time.
var OpenPeriod = Period{Start: math.MinInt32, End: math.MaxInt32}

// PeriodOf is the span a fuzzy date may mean: "2015" is 2015-01-01 through 2015-12-31.
func PeriodOf(d FuzzyDate) Period { return Period{Start: d.FirstDay(), End: d.LastDay()} }

// Overlaps reports whether the two periods share a day.
func (p Period) Overlaps(q Period) bool { return p.Start <= q.End && q.Start <= p.End }
