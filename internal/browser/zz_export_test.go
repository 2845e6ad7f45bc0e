package browser

import "context"

func ZZEval(ctx context.Context, t *Tab, call string) (any, error) {
	fr, err := t.mainFrame(ctx)
	if err != nil {
		return nil, err
	}
	var out any
	_, err = frameWorld{sess: t.page, frameID: fr.ID}.eval(ctx, call, &out)
	return out, err
}

func ZZProbe() string { return probeName }
