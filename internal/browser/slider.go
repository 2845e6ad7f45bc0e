package browser

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A slider is filled with a number: a native range input gets the value
// as a person's drag would leave it (its input and change events); an ARIA
// slider (a library's thumb: role=slider with aria-valuenow) gets the keys
// a person would press, the arrow keys from where it is, and the result is
// verified only when the slider shows the value asked for.

// sliderState is a slider's value and range as its page shows them.
type sliderState struct {
	Native bool    `json:"native"`
	Now    float64 `json:"now"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Text   string  `json:"text"` // aria-valuetext, when the slider says its value in words
	Err    string  `json:"err"`
}

// sliderJS reads a slider (focusing an ARIA one, so that keys reach it).
const sliderJS = `function(focus){
  const g=a=>this.getAttribute(a), num=(a,d)=>{ const v=g(a); return v===null||v===""||isNaN(+v)?d:+v; };
  if(this.tagName==="INPUT"&&this.type==="range") return {native:true, now:+this.value, min:this.min===""?0:+this.min, max:this.max===""?100:+this.max};
  if(g("aria-valuenow")===null) return {err:"the slider says no value (aria-valuenow)"};
  if(focus){ this.focus({preventScroll:false}); let a=document.activeElement; while(a&&a.shadowRoot&&a.shadowRoot.activeElement) a=a.shadowRoot.activeElement;
    if(a!==this) return {err:"the slider cannot take the focus, so its keys would go elsewhere"}; }
  return {now:num("aria-valuenow",0), min:num("aria-valuemin",0), max:num("aria-valuemax",100), text:g("aria-valuetext")||""};
}`

// setRangeJS sets a native range input the way a drag leaves it.
const setRangeJS = `function(v){
  const set=Object.getOwnPropertyDescriptor(HTMLInputElement.prototype,"value").set;
  set.call(this,v);
  this.dispatchEvent(new Event("input",{bubbles:true})); this.dispatchEvent(new Event("change",{bubbles:true}));
  return +this.value;
}`

// maxSliderKeys bounds the arrow keys one fill sends.
const maxSliderKeys = 1000

// setSlider fills the slider el with the number a.Value.
func (ac actor) setSlider(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	bad := func(why string) error {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("cannot fill %s: %s", a.Target.Describe(), why),
			Hint: "fill a slider with a number within its range, e.g. {\"action\":\"fill\",\"value\":\"40\"}"}
	}
	if a.Kind != "fill" {
		return bad("a slider has no text to " + a.Kind)
	}
	want, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
	if err != nil {
		return bad(fmt.Sprintf("%q is not a number", a.Value))
	}
	read := func(focus bool) (sliderState, error) {
		var st sliderState
		if err := t.callEl(ctx, el, sliderJS, &st, focus); err != nil {
			return st, backendError("read the slider", err)
		}
		if st.Err != "" {
			return st, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("cannot fill %s: %s", a.Target.Describe(), st.Err),
				Hint: "drag its thumb with browser_action drag, or press arrow keys on it", Diagnosis: map[string]any{"failed_check": "value"}}
		}
		return st, nil
	}
	st, err := read(true)
	if err != nil {
		return err
	}
	if want < st.Min || want > st.Max {
		return bad(fmt.Sprintf("%s is outside its range %s–%s", numText(want), numText(st.Min), numText(st.Max)))
	}
	res.changed = true
	if st.Native {
		var got float64
		if err := t.callEl(ctx, el, setRangeJS, &got, a.Value); err != nil {
			return backendError("set the slider", err)
		}
		st.Now = got
	} else if st, err = ac.slideByKeys(ctx, t, want, st, read); err != nil {
		return err
	}
	res.Value = numText(st.Now)
	if st.Text != "" {
		res.Value += " (" + st.Text + ")"
	}
	if st.Now == want {
		res.Outcome = "verified"
		return nil
	}
	return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("filled %s but it shows %s, not %s", a.Target.Describe(), numText(st.Now), numText(want)),
		Hint:      "the slider moves in steps that miss this value; fill it with a value on its steps",
		Diagnosis: map[string]any{"failed_check": "value", "expected": numText(want), "actual": numText(st.Now)}}
}

// slideByKeys moves an ARIA slider to want with arrow keys: one press
// tells its step, then as many as the distance takes, then a correction
// for a slider whose steps are not even (a logarithmic one).
func (ac actor) slideByKeys(ctx context.Context, t *Tab, want float64, st sliderState, read func(bool) (sliderState, error)) (sliderState, error) {
	sent := 0
	// flip: the slider runs the other way (a reversed or right-to-left
	// one), where ArrowLeft increases it.
	flip := false
	press := func(n int, up bool) error {
		key := "ArrowLeft"
		if up != flip {
			key = "ArrowRight"
		}
		for range n {
			if sent >= maxSliderKeys {
				return nil
			}
			if err := pressKey(ctx, t, key); err != nil {
				return err
			}
			sent++
		}
		return nil
	}
	for round := 0; round < 8 && st.Now != want && sent < maxSliderKeys; round++ {
		before := st.Now
		if err := press(1, want > st.Now); err != nil {
			return st, err
		}
		var err error
		if st, err = read(false); err != nil {
			return st, err
		}
		if (st.Now-before)*(want-before) < 0 {
			flip = !flip // (the press moved it away from want)
		}
		step := math.Abs(st.Now - before)
		if step == 0 {
			if round == 0 {
				return st, &Error{Code: CodeNotActionable, Message: "the slider does not move with the arrow keys",
					Hint: "drag its thumb with browser_action drag", Diagnosis: map[string]any{"failed_check": "value"}}
			}
			break // at an end, or a step past want would overshoot it
		}
		if n := int(math.Round(math.Abs(want-st.Now) / step)); n > 0 {
			if err := press(n, want > st.Now); err != nil {
				return st, err
			}
			if st, err = read(false); err != nil {
				return st, err
			}
		}
		if math.Abs(want-st.Now) < step/2 {
			break // as near as its steps go
		}
	}
	return st, nil
}

// numText formats a slider's number as a person reads it (no trailing zeros).
func numText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
