package layers

// The admission families heard by default beside the seed phrases, by
// language: the wordings of "I could not", of deferral ("for now", "later",
// "in a follow-up") and of "still to do". Each phrase is matched as words
// (CJK phrases as written), in the agent's own final message, and not when
// a negation stands in the five words before it ([Admissions]). The
// config's layers.admissions replaces them all.

// admissionsEN are the English family.
var admissionsEN = []string{
	"wasn't able to", "was not able to", "weren't able to", "were not able to", "I was unable to", "I am unable to", "I'm unable to", "we were unable to",
	"couldn't get", "could not get", "couldn't make", "could not make", "couldn't fix", "could not fix", "couldn't finish", "could not finish",
	"couldn't complete", "couldn't figure out", "could not figure out", "couldn't resolve", "could not resolve",
	"couldn't do", "could not do", "couldn't run", "could not run", "couldn't implement", "could not implement",
	"couldn't solve", "could not solve", "couldn't work out", "couldn't test", "could not test",
	"I failed to", "we failed to", "didn't manage to", "did not manage to", "wasn't possible", "was not possible",
	"didn't have time", "did not have time", "not enough time", "no time left",
	"you'll need to manually", "you will need to manually", "you'll need to finish", "you will need to finish", "you'll need to implement", "you'll need to complete",
	"you need to manually", "please manually", "manual step",
	"remains to be done", "left to do", "still to do", "yet to be done", "only partially", "partially implemented",
	"doesn't work yet", "does not work yet", "not working yet", "isn't working", "doesn't pass yet", "not passing yet",
	"ran out of time", "run out of time", "out of budget", "left as an exercise",
	"need to manually", "needs to be done manually", "have to manually", "must be done by hand",
	"still needs", "still need to", "needs a follow-up", "need a follow-up", "in a follow-up", "for a follow-up", "follow-up PR", "separate PR",
	"not finished", "isn't finished", "not yet complete", "not complete yet", "is incomplete", "still incomplete", "remains incomplete",
	"didn't get to", "did not get to", "I gave up", "not implemented yet", "not yet implemented", "isn't implemented yet",
	"not done yet", "isn't done yet", "not yet done", "not yet finished", "not yet wired", "not yet handled", "not yet tested", "not yet written",
	"haven't gotten around to", "have not gotten around to", "didn't get around to", "did not get around to", "haven't had time", "have not had time",
	"have yet to", "has yet to be", "have not yet", "haven't yet", "still pending", "remains pending", "remain pending", "still missing",
	"skipped for now", "disabled for now", "stubbed for now", "hard-coded for now", "hardcoded for now", "mocked for now", "left out for now", "for now I've", "for now I have",
	"deferred to a", "deferred to the docs", "deferred to the next", "deferred until later", "I deferred", "we deferred", "I've deferred", "defer to a later", "I postponed", "we postponed", "punted", "punting", "left for later", "will do later", "to be done later",
	"in a later pass", "a later pass", "a future pass", "in a future PR", "later PR", "out of scope for now", "stubbed out for now",
	"left untested", "is untested", "haven't tested", "have not tested", "did not verify", "didn't verify", "couldn't verify", "could not verify",
	"still failing", "still fails", "tests still fail", "some tests fail", "tests are failing", "temporarily disabled", "commented out the test", "skipped the test",
}

// admissionsDE are the German family.
var admissionsDE = []string{
	"noch nicht fertig", "noch nicht implementiert", "noch nicht umgesetzt", "noch nicht erledigt", "noch nicht getestet", "noch nicht vollständig", "habe noch nicht", "nicht fertig", "nicht geschafft", "nicht vollständig", "ist unvollständig", "noch unvollständig", "konnte nicht", "konnten nicht", "habe es nicht geschafft",
	"noch offen", "steht noch aus", "stehen noch aus", "ausstehend", "muss noch", "müssen noch", "fehlt noch", "fehlen noch",
	"später erledigen", "später nachholen", "auf später verschoben", "vorerst übersprungen", "vorerst deaktiviert", "vorläufig deaktiviert", "keine Zeit mehr",
	"manuell erledigt werden", "manuell ausgeführt werden", "von Hand erledigt",
}

// admissionsFR are the French family.
var admissionsFR = []string{
	"pas encore implémenté", "pas encore implémentée", "pas encore fini", "pas encore terminé", "pas encore fait", "pas encore testé", "n'ai pas encore", "pas fini", "pas terminé", "pas terminée", "non terminé", "est incomplet", "est incomplète", "reste incomplet",
	"reste à faire", "restent à faire", "il reste à", "je n'ai pas pu", "nous n'avons pas pu", "n'ai pas réussi", "n'ai pas eu le temps",
	"à faire plus tard", "je le ferai plus tard", "traiterai plus tard", "reporté à plus tard", "en attente", "pas implémenté", "non implémenté", "désactivé pour l'instant", "ignoré pour l'instant",
	"doit être fait manuellement", "à faire manuellement", "il faudra manuellement", "à faire à la main",
}

// admissionsES are the Spanish family.
var admissionsES = []string{
	"todavía no está", "aún no está", "todavía no he", "aún no he", "todavía no funciona", "aún no funciona", "no está terminado", "no está terminada", "sin terminar", "está incompleto", "está incompleta", "sigue incompleto",
	"queda pendiente", "quedan pendientes", "sigue pendiente", "está pendiente", "por hacer", "falta implementar", "falta terminar", "faltan pruebas", "falta por hacer",
	"no pude", "no he podido", "no logré", "no me dio tiempo", "no tuve tiempo", "lo dejo para después", "queda para más adelante", "lo dejo para más adelante",
	"sin implementar", "no implementado", "desactivado por ahora", "omitido por ahora", "hay que hacerlo manualmente", "debe hacerse manualmente",
}

// admissionsPT are the Portuguese family.
var admissionsPT = []string{
	"ainda não está", "ainda não terminei", "ainda não implementado", "ainda não funciona", "ainda não fiz", "ainda não testei", "não terminei", "não está pronto", "não está pronta", "está incompleto", "está incompleta", "ficou incompleto",
	"fica pendente", "ficam pendentes", "está pendente", "continua pendente", "por fazer", "falta implementar", "falta terminar", "faltam testes",
	"não consegui", "não conseguimos", "não tive tempo", "fica para depois", "deixei para depois", "farei mais tarde",
	"não implementado", "sem implementar", "desativado por enquanto", "ignorado por enquanto", "precisa ser feito manualmente",
}

// admissionsJA are the Japanese family (matched as written).
var admissionsJA = []string{
	"未実装", "未完了", "未対応", "まだ終わって", "まだ完了して", "まだ実装して", "まだ対応して", "まだできて",
	"できませんでした", "できていません", "間に合いません", "間に合わなかった", "後で対応", "後ほど対応", "今後対応", "残作業", "残りの作業",
	"保留中", "一時的に無効", "手動で行う必要", "手動で対応が必要",
}

// admissionsZH are the Chinese family (matched as written).
var admissionsZH = []string{
	"尚未完成", "尚未实现", "还没有完成", "还没完成", "还没有实现", "还没实现", "还没做", "未完成", "未实现", "没有完成", "没能", "无法完成", "来不及",
	"待办", "待完成", "稍后", "以后再", "后续再", "剩余工作", "剩下的工作", "暂时跳过", "暂时禁用", "需要手动", "手动完成",
}
