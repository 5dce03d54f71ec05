package e2e

import (
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
)

// SemanticJudgeIntro opens the prompt of ralph-ci's semantic judge: the
// scripted servers answer those conversations as the judge.
const SemanticJudgeIntro = layers.SemanticJudgeIntro
