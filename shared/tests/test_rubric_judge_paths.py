"""The rule judge's paths for dates, numbers, text, imperfect tables and options: which rule decides.

Written against the survivors of `make mutation` (group rubric_judge). Each case asserts the verdict and
the rule that decided it (the rationale, stored with every judgment), on real-looking answers, English and
Arabic, with and without the question's table.
"""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import RuleVerdict, judge_answer, judge_text


def rule(v: RuleVerdict) -> str:
    """The rationale without the extraction method ("date matches [whole]" -> "date matches")."""
    return v.rationale.rsplit(" [", 1)[0]


def decided(v: RuleVerdict) -> tuple[str, str]:
    return v.verdict, rule(v)


# --- dates -----------------------------------------------------------------------------------------------

FIXTURES = [["4 March 2005", "Home"], ["18 March 2005", "Away"], ["1 April 2005", "Home"]]
FIXTURES_AR = [["4 مارس 2005", "على أرضه"], ["18 مارس 2005", "خارج أرضه"]]
SEVERAL = "the answer names several dates, not all equal to the gold"


@pytest.mark.parametrize(("response", "gold", "lang", "table", "verdict", "why"), [
    ("It was on 4 March 2005.", "4 March 2005", "en", None, "correct", "date matches"),
    ("It was on 20 March 2005.", "4 March 2005", "en", None, "incorrect", "date differs"),
    ("Sometime in spring.", "4 March 2005", "en", None, "incorrect", "no date in the answer"),
    ("Insufficient information.", "2005-03-19", "en", None, "incorrect", "declined (insufficient)"),
    ("لا توجد معلومات كافية.", "2005-03-19", "ar", None, "incorrect", "declined (insufficient)"),
    ("كانت المباراة في 4 مارس 2005.", "2005-03-04", "ar", None, "correct", "date matches"),
    # one date written day/month or month/day: only one reading is the gold
    ("It was on 03/04/2005.", "4 March 2005", "en", None, "uncertain",
     "ambiguous day/month order: only one reading matches"),
    ("It was on 03/04/2005 and 05/06/2005.", "4 March 2005", "en", None, "uncertain", SEVERAL),
    ("It was on 4 March 2005 and 18 March 2005.", "4 March 2005", "en", None, "uncertain", SEVERAL),
    # with the table: a date of another row listed with the gold is wrong
    ("It was on 4 March 2005 and 18 March 2005.", "4 March 2005", "en", FIXTURES, "incorrect",
     "the answer lists '18 march 2005', a date of another row of the column, with the gold"),
    ("The home games were on 4 March 2005 and 1 April 2005.", "4 March 2005", "en", FIXTURES, "incorrect",
     "the answer lists '1 april 2005', a date of another row of the column, with the gold"),
    ("كانت المباراة في 4 مارس 2005 و18 مارس 2005.", "4 مارس 2005", "ar", FIXTURES_AR, "incorrect",
     "the answer lists '18 مارس 2005', a date of another row of the column, with the gold"),
    # ... but not a date the table does not have, nor one set against the gold rather than listed with it
    ("It was on 4 March 2005 and 7 May 2005.", "4 March 2005", "en", FIXTURES, "uncertain", SEVERAL),
    ("It was on 18 March 2005, not 4 March 2005.", "4 March 2005", "en", FIXTURES, "uncertain", SEVERAL),
])
def test_date_rules(response: str, gold: str, lang: str, table: list[list[str]] | None, verdict: str,
                    why: str) -> None:
    assert decided(judge_text(response, gold, language=lang, table=table)) == (verdict, why)


@pytest.mark.parametrize(("response", "gold", "lang", "question"), [
    ("After the 12 March 2005 match, the next was on 19 March 2005.", "19 March 2005", "en",
     "Which match came after the one on 12 March 2005?"),
    ("بعد مباراة 12 مارس 2005 جاءت مباراة 19 مارس 2005.", "2005-03-19", "ar",
     "ما المباراة التي جاءت بعد مباراة 12 مارس 2005؟"),
])
def test_a_date_the_question_names_is_context(response: str, gold: str, lang: str, question: str) -> None:
    assert decided(judge_text(response, gold, language=lang, question=question)) == ("correct", "date matches")
    # the question's date alone is no answer
    echo = response.split(",")[0] if lang == "en" else "بعد مباراة 12 مارس 2005."
    assert decided(judge_text(echo, gold, language=lang, question=question)) == ("incorrect", "date differs")


# --- imperfect tables and options --------------------------------------------------------------------------

def _imperfect(kind: str, response: str, lang: str = "en") -> RuleVerdict:
    q = Question(id=f"imperfect-{kind}", table_id="t", family="fact", text="What is the total price of apples?",
                 gold=Gold(kind=kind, text=kind), language=lang)
    return judge_answer(response, q)


@pytest.mark.parametrize(("kind", "response", "lang", "verdict", "why"), [
    ("insufficient", "The total is 42 apples.", "en", "incorrect", "a numeric answer to an unanswerable question"),
    ("insufficient", "٤٢ تفاحة", "ar", "incorrect", "a numeric answer to an unanswerable question"),
    ("contradictory", "The answer: 42, though the table is contradictory", "en", "incorrect",
     "a numeric final answer to an unanswerable question"),
    ("contradictory", "The table is contradictory.", "en", "correct", "recognises the table is contradictory"),
    ("insufficient", "معلومات غير كافية", "ar", "correct", "recognises the table is insufficient"),
    ("contradictory", "Insufficient information.", "en", "uncertain",
     "recognises the question is unanswerable but calls it insufficient, gold contradictory"),
    ("contradictory", "I like apples.", "en", "incorrect", "does not say the table is contradictory"),
])
def test_imperfect_rules(kind: str, response: str, lang: str, verdict: str, why: str) -> None:
    assert decided(_imperfect(kind, response, lang)) == (verdict, why)


def test_option_rules() -> None:
    options = ["10 MHz", "15 MHz", "20 MHz", "5 MHz"]
    q = Question(id="option-rules", table_id="t", family="fact", text="Which bandwidth does the band use?",
                 gold=Gold.for_option(options, 3), language="en", options=options)
    assert decided(judge_answer("Option 3", q)) == ("correct", "option 3 chosen")
    assert decided(judge_answer("Option 2", q)) == ("incorrect", "option 2 chosen, gold 3")
    assert decided(judge_answer("I would rather not say.", q)) == ("incorrect", "no option recognised")
    assert decided(judge_answer("Either option 2 or option 3", q)) == (
        "uncertain", "the answer points at several options [2, 3]")


# --- numbers ---------------------------------------------------------------------------------------------

ROBOTS = "How many robots are from the United States?"
SEVERAL_NUMBERS = "the answer names several numbers, not all equal to the gold"


@pytest.mark.parametrize(("response", "gold", "question", "verdict", "why"), [
    ("It is 12.", "12", "", "correct", "number matches"),
    ("None of them.", "0", "", "correct", "zero stated in words"),
    ("There were no wins.", "0", "", "correct", "zero stated in words"),
    ("لا يوجد أي فوز.", "0", "", "correct", "zero stated in words"),
    ("None of them.", "3", "", "incorrect", "no number in the answer"),
    ("Insufficient information.", "12", "", "incorrect", "declined (insufficient) an answerable question"),
    ("Many.", "12", "", "incorrect", "no number in the answer"),
    ("12, though there is insufficient information to be sure.", "12", "", "uncertain",
     "gives the number but also says the table cannot answer"),
    ("It is 12.5.", "13", "", "incorrect", "number differs (12.5 vs 13)"),
    ("It is 12.", "13", "", "incorrect", "number differs (12 vs 13)"),
    # the first number of a marked final answer decides
    ("\\boxed{12, 14}", "12", "", "correct", "first number of the final answer matches"),
    ("\\boxed{14, 12}", "12", "", "incorrect", "first number of the final answer differs"),
    ("The answer: 14 or 12", "12", "", "incorrect", "first number of the final answer differs"),
    ("It is 12 or 14.", "12", "", "uncertain", SEVERAL_NUMBERS),
    # numbers inside dates and years given as context are no candidates, unless the gold is a year
    ("On 4 March 2005 they scored 12.", "12", "", "correct", "number matches"),
    ("It was on 4 March 2005.", "2005", "", "correct", "number matches"),
    ("It was on 4 March 2005.", "4", "", "incorrect", "no number in the answer"),
    ("In 1998 they scored 12.", "12", "", "correct", "number matches"),
    ("Since 1000 they scored 12.", "12", "", "correct", "number matches"),
    ("Since 2100 they scored 12.", "12", "", "correct", "number matches"),
    ("In 999 they scored 12.", "12", "", "uncertain", SEVERAL_NUMBERS),
    ("Since 2101 they scored 12.", "12", "", "uncertain", SEVERAL_NUMBERS),
    ("They scored 12 in 1998.5 minutes.", "12", "", "uncertain", SEVERAL_NUMBERS),
    ("In 1998 they won 3 titles.", "1998", "", "correct", "number matches"),
    ("1998, with 3 titles", "1998", "", "correct", "number matches"),
    # a number the question names is an echo, not the answer, when the answer gives another
    ("The team with 13 wins had 4 draws.", "4", "How many draws did the team with 13 wins have?", "correct",
     "number matches"),
    ("13", "4", "How many draws did the team with 13 wins have?", "incorrect", "number differs (13 vs 4)"),
    ("Team A had 13 wins and 4 draws.", "4", "How many draws did Team A have?", "uncertain", SEVERAL_NUMBERS),
    # the answer counts another entity than the one asked about
    ("Two robots are from France.", "2", ROBOTS, "uncertain",
     "the question asks about 'states united', the answer about 'france'"),
    ("Two robots are from the United States.", "2", ROBOTS, "correct", "number matches"),
    ("\\boxed{2} robots are from France.", "2", ROBOTS, "correct", "number matches"),
])
def test_number_rules(response: str, gold: str, question: str, verdict: str, why: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in response) else "en"
    assert decided(judge_text(response, gold, language=lang, question=question)) == (verdict, why)


def test_number_rules_with_the_table() -> None:
    robots = [["Robot A", "United States"], ["Robot B", "France"]]
    assert decided(judge_text("Two robots are from France.", "2", question=ROBOTS, table=robots)) == (
        "incorrect", "the question asks about 'states united', the answer about 'france', another value of the same "
                     "column")
    years = [["2001", "1"], ["2002", "1"], ["2009", "1"], ["2010", "9"]]
    q = "when was the last year team x finished first?"
    assert decided(judge_text("Team X finished first in 2001, 2002 and 2009.", "2009", question=q, table=years)) == (
        "incorrect", "the answer lists 2002, a year of another row of the column, with the gold")
    assert decided(judge_text("Team X finished first in 2009 and 2011.", "2009", question=q, table=years)) == (
        "uncertain", SEVERAL_NUMBERS)


# --- text ------------------------------------------------------------------------------------------------

CARDINALS = "St. Louis Cardinals"
TWO_WAY = "Which team won, the Cardinals or the Cubs?"
WINS_13 = "Which nationality had a total of 13 wins?"


@pytest.mark.parametrize(("response", "gold", "question", "verdict", "why"), [
    ("Paris", "Paris", "", "correct", "text matches"),
    ("The capital is Paris.", "Paris", "", "correct", "the answer states the gold"),
    ("Riyadh", "الرياض", "", "incorrect", "Arabic entity answered in another script"),
    ("الرياض", "الرياض", "", "correct", "text matches"),
    ("Barcelonna", "Barcelona", "", "correct", "text matches up to a minor spelling slip"),
    ("Lyon", "Paris", "", "incorrect", "the gold is not in the answer"),
    ("Insufficient information.", "Paris", "", "incorrect", "declined (insufficient) an answerable question"),
    ("Paris, though the table does not provide enough information.", "Paris", "", "uncertain",
     "names the gold but also says the table cannot answer"),
    # seasons and year ranges
    ("The 1936–37 season.", "1936/37", "", "correct", "the answer states the gold"),
    ("The 1937–38 season.", "1936/37", "", "incorrect", "another year range than the gold's"),
    ("The 1936–37 and 1937–38 seasons.", "1936/37", "", "uncertain", "the answer names several year ranges"),
    ("It took 5:29:10.", "5h 29' 10\"", "", "correct", "duration matches"),
    ("It took 5:29:11.", "5h 29' 10\"", "", "incorrect", "the gold is not in the answer"),
    # part of the gold, alone or as part of another name
    ("The Cardinals.", CARDINALS, "", "uncertain", "the answer names part of the gold"),
    ("St. Louis", CARDINALS, "", "uncertain", "the answer names part of the gold"),
    ("The Cardinals won.", CARDINALS, "", "incorrect", "the gold is not in the answer"),
    ("Cardinals 1998", CARDINALS, "", "incorrect", "the gold is not in the answer"),
    ("North Texas State", "Texas Pan-American", "", "incorrect", "the gold is not in the answer"),
    ("الكاردينالز", "سانت لويس الكاردينالز", "", "uncertain", "the answer names part of the gold"),
    ("Cardinals, the champions.", CARDINALS, "", "uncertain", "the answer names part of the gold"),
    ("Gone.", "Gone with the Wind", "", "uncertain", "the answer names part of the gold"),
    # a stopword, a number or a short word of the gold alone names nothing
    ("With.", "Gone with the Wind", "", "incorrect", "the gold is not in the answer"),
    ("It was 1999.", "Class of 1999", "", "incorrect", "the gold is not in the answer"),
    ("Dez.", "Dez White", "", "incorrect", "the gold is not in the answer"),
    # a two-way question
    ("Chicago won.", CARDINALS, TWO_WAY, "uncertain", "a two-way question answered without naming either alternative"),
    ("The Cubs won.", CARDINALS, TWO_WAY, "incorrect", "the gold is not in the answer"),
    ("Cardinals", CARDINALS, TWO_WAY, "incorrect", "the gold is not in the answer"),
    # the gold among others, hedged or negated
    ("Paris or Lyon", "Paris", "", "uncertain", "the answer offers the gold as one of several"),
    ("Paris, Lyon and Nice", "Paris", "", "uncertain", "the answer states the gold as one item of a list"),
    ("Probably Paris.", "Paris", "", "uncertain", "the answer hedges"),
    ("Not Paris.", "Paris", "", "uncertain", "the answer contains a negation"),
    # the question's condition restated with another number
    ("The United States had 12 wins.", "United States", WINS_13, "uncertain",
     "the answer restates the question's condition with another number"),
    ("The United States had 13 wins.", "United States", WINS_13, "correct", "the answer states the gold"),
    ("The United States, 12 titles.", "United States", WINS_13, "correct", "the answer states the gold"),
    ("Team 12 had 13 wins.", "Team 12", WINS_13, "correct", "the answer states the gold"),
    # a gold of two values in one cell
    ("Both Omar and Ali.", "Ali / Omar", "", "correct", "the answer states the gold"),
    ("Omar.", "Ali / Omar", "", "uncertain", "the answer names part of the gold"),
    ("The pair was Ali, Omar.", "Ali / Omar", "", "correct", "the answer states the gold"),
    # both values of the cell, but as items of a longer comma list: once judged correct
    ("Ali, Omar, Sami", "Ali / Omar", "", "uncertain", "the answer states the gold as one item of a list"),
    ("Sami, Ali, Omar", "Ali / Omar", "", "uncertain", "the answer states the gold as one item of a list"),
    ("علي، عمر، سامي", "علي / عمر", "", "uncertain", "the answer states the gold as one item of a list"),
])
def test_text_rules(response: str, gold: str, question: str, verdict: str, why: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in gold) else "en"
    assert decided(judge_text(response, gold, language=lang, question=question)) == (verdict, why)


DRAFT = [["1", "Brian Urlacher"], ["2", "Mike Brown"], ["3", "Dez White"]]
DRAFTED = "who was drafted in the first round?"
PART = "the answer names part of the gold, which no other cell of its column has"


@pytest.mark.parametrize(("response", "gold", "table", "verdict", "why"), [
    ("Urlacher was drafted in the first round.", "Brian Urlacher", DRAFT, "correct", PART),
    ("Urlacer was drafted in the first round.", "Brian Urlacher", DRAFT, "correct", PART),  # a slip
    ("Drafted in the first round: Urlacher.", "Brian Urlacher", DRAFT, "correct", PART),
    # two rows hold "Brown" up to a slip of more than one letter: only the gold's row holds "Brown"
    ("Brown was drafted in the first round.", "Brian Brown", [["1", "Brian Brown"], ["2", "Mike Braun"]], "correct",
     PART),
    ("Brown was drafted in the first round.", "Brian Brown", [["1", "Brian Brown"], ["2", "Mike Brown"]],
     "uncertain", "the answer names part of the gold"),
    # lines of one cell
    ("It stops at St. Lawrence College, then Cataraqui Town Centre.", "Cataraqui Town Centre St. Lawrence College",
     [["4", "Princess Street"], ["6", "Cataraqui Town Centre\nSt. Lawrence College"], ["9", "Downtown"]], "correct",
     "the answer names every line of the gold's cell"),
    ("The bus goes to Cataraqui Town Centre and Downtown.", "Cataraqui Town Centre St. Lawrence College",
     [["4", "Princess Street"], ["6", "Cataraqui Town Centre\nSt. Lawrence College"], ["9", "Downtown"]],
     "incorrect", "the answer names part of the gold's cell and 'downtown', another value of the column"),
])
def test_text_rules_with_the_table(response: str, gold: str, table: list[list[str]], verdict: str, why: str) -> None:
    assert decided(judge_text(response, gold, question=DRAFTED, table=table)) == (verdict, why)


def test_a_list_after_a_word_with_a_doubled_apostrophe() -> None:
    """Wiki markup writes italics with two apostrophes: "O''Neil" is one key word but two words of the list
    reader, whose word positions then differ from the key's."""
    answer = "O''Neil's list: Spain, Italy, France won gold."
    medals = [["1", "France"], ["2", "Italy"], ["3", "Spain"]]
    assert decided(judge_text(answer, "Italy", table=medals)) == (
        "incorrect", "the answer lists 'spain', another value of the asked column, with the gold")
    assert decided(judge_text(answer, "Italy")) == ("uncertain", "the answer states the gold as one item of a list")
    assert decided(judge_text("O''Neil's list: Spain, France, Italy", "Italy", table=medals)) == (
        "incorrect", "the answer lists 'france', another value of the asked column, with the gold")
    assert decided(judge_text("O''Neil's pick: Italy won gold.", "Italy", table=medals)) == (
        "correct", "the answer states the gold")


def test_a_two_value_cell_listed_with_another_value_of_its_column() -> None:
    pairs = [["1", "Ali / Omar"], ["2", "Sami"], ["3", "Karim"]]
    assert decided(judge_text("Ali, Omar, Sami", "Ali / Omar", table=pairs)) == (
        "incorrect", "the answer lists 'sami', another value of the asked column, with the gold")
    assert judge_text("Ali, Omar", "Ali / Omar", table=pairs).verdict == "correct"


def test_a_value_the_question_names_is_not_listed_with_a_line() -> None:
    routes = [["4", "Princess Street"], ["6", "Cataraqui Town Centre\nSt. Lawrence College"], ["9", "Downtown"]]
    gold = "Cataraqui Town Centre St. Lawrence College"
    v = judge_text("The bus goes to Cataraqui Town Centre and Downtown.", gold, table=routes,
                   question="Which route goes to Downtown?")
    assert decided(v) == ("uncertain", "the answer names other candidates beside the gold")


def test_a_long_part_owned_by_one_row_up_to_one_slip() -> None:
    # "Konstandinou" is two letters from "Konstantinos": another player, not a slip of the gold's name
    scorers = [["1", "Nikos Konstantinos"], ["2", "Petros Konstandinou"], ["3", "Ilias Papadopoulos"]]
    v = judge_text("Konstantinos scored the winning goal.", "Nikos Konstantinos", question="Who scored the winning goal?",
                   table=scorers)
    assert decided(v) == ("correct", PART)


@pytest.mark.parametrize("response", [
    "Dez was drafted in the first round.",  # a short first name alone is no part that names a row
    "Linebacker Urlacher was drafted in the first round.",  # the part beside another name word
])
def test_a_part_that_does_not_name_the_gold_row(response: str) -> None:
    gold = "Dez White" if response.startswith("Dez") else "Brian Urlacher"
    assert judge_text(response, gold, question=DRAFTED, table=DRAFT).verdict != "correct"


# --- booleans, and what judge_answer passes on ---------------------------------------------------------------

@pytest.mark.parametrize(("question", "response", "verdict", "why"), [
    ("Did the Lakers win the 2001 title?", "Yes, the Lakers won the 2001 title.", "correct", "polarity matches"),
    ("Did the Lakers win the 2001 title?", "No.", "incorrect", "polarity differs"),
    ("Did the Lakers win the 2001 title?", "Yes, the Lakers did not win the 2001 title.", "uncertain",
     "the yes/no and its own sentence disagree (the sentence turns the question round)"),
    ("Did the Lakers win the 2001 title?", "Maybe.", "uncertain", "no clear true/false"),
    ("Did the Lakers win the 2001 title?", "Insufficient information.", "incorrect", "declined to say true or false"),
    ("هل فاز الهلال بلقب 2001؟", "نعم، فاز الهلال بلقب 2001.", "correct", "polarity matches"),
    ("هل فاز الهلال بلقب 2001؟", "نعم، لم يفز الهلال بلقب 2001.", "uncertain",
     "the yes/no and its own sentence disagree (the sentence turns the question round)"),
    ("هل فاز الهلال بلقب 2001؟", "ربما.", "uncertain", "no clear true/false"),
    ("هل فاز الهلال بلقب 2001؟", "معلومات غير كافية", "incorrect", "declined to say true or false"),
    ("هل فاز الهلال بلقب 2001؟", "لا.", "incorrect", "polarity differs"),
])
def test_boolean_rules(question: str, response: str, verdict: str, why: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in question) else "en"
    q = Question(id=f"bool-{lang}", table_id="t", family="fact", text=question,
                 gold=Gold(kind="boolean", boolean=True, text="true"), language=lang)
    assert decided(judge_answer(response, q)) == (verdict, why)


def test_judge_answer_passes_the_tolerances_and_the_table_on() -> None:
    average = Question(id="avg", table_id="t", family="fact", text="What was the average score?",
                       gold=Gold(kind="number", number=12.4, text="12.4"), language="en")
    assert decided(judge_answer("About 12.", average)) == ("incorrect", "number differs (12 vs 12.4)")
    assert decided(judge_answer("About 12.", average, relative_tolerance=0.05)) == ("correct", "number matches")
    assert decided(judge_answer("About 12.", average, tolerance=0.5)) == ("correct", "number matches")
    last = Question(id="last", table_id="t", family="fact", text="when was the last year team x finished first?",
                    gold=Gold(kind="number", number=2009.0, text="2009"), language="en")
    answer = "Team X finished first in 2001, 2002 and 2009."
    assert judge_answer(answer, last).verdict == "uncertain"
    years = [["2001", "1"], ["2002", "1"], ["2009", "1"], ["2010", "9"]]
    assert decided(judge_answer(answer, last, table=years)) == (
        "incorrect", "the answer lists 2002, a year of another row of the column, with the gold")


# --- a relation with a few words between it and the anchor ------------------------------------------------

AFTER_CASE = "which manager came after George Case?"
LEMON_AFTER = "Bob Lemon came after the tenure of George Case."


def test_a_relation_reaches_the_anchor_over_a_few_words_when_the_table_rules_out_the_rest() -> None:
    managers = [["1", "Bob Lemon"], ["2", "George Case"], ["3", "Al Lopez"]]
    assert decided(judge_text(LEMON_AFTER, "Bob Lemon", question=AFTER_CASE, table=managers)) == (
        "correct", "the answer states the gold")
    assert decided(judge_text(LEMON_AFTER, "Bob Lemon", question=AFTER_CASE)) == (
        "uncertain", "the answer names the anchor but not how the gold relates to it")
    # a table without the gold rules nothing out
    assert decided(judge_text(LEMON_AFTER, "Bob Lemon", question=AFTER_CASE,
                              table=[["2", "George Case"], ["3", "Al Lopez"]])) == (
        "uncertain", "the answer names the anchor but not how the gold relates to it")
    # another value of the column that the question does not name
    assert judge_text("Bob Lemon came after the tenure of George Case and Al Lopez.", "Bob Lemon",
                      question=AFTER_CASE, table=managers).verdict == "uncertain"


# --- the entry points -------------------------------------------------------------------------------------

def test_entry_points() -> None:
    from livetab.rubric.gold import prepare_gold, spec_from_strings
    from livetab.rubric.judge import judge_spec

    assert judge_text("Anything at all", "x", kind="free") == RuleVerdict(
        "uncertain", "", "free-form gold: no rule applies")
    assert judge_text("", "12") == RuleVerdict("incorrect", "", "no answer (empty)")
    assert judge_text("...", "12") == RuleVerdict("incorrect", "...", "no answer (whole)")
    # judge_spec's own default tolerances are the judge's
    assert decided(judge_spec("It is 13.", spec_from_strings("12.4"))) == ("incorrect", "number differs (13 vs 12.4)")
    assert decided(judge_spec("About 12.", spec_from_strings("12.4"))) == ("incorrect", "number differs (12 vs 12.4)")
    # judge_text passes the kind on
    assert decided(judge_text("2006", "2006", kind="text")) == ("correct", "text matches")
    assert decided(judge_text("2006", "2006")) == ("correct", "number matches")
    # a question's gold is prepared once
    q = Question(id="once", table_id="t", family="fact", text="q?", gold=Gold(kind="text", text="Paris"), language="en")
    assert prepare_gold(q) is prepare_gold(q)
    # an imperfect gold's text is not read as a number
    imperfect = Question(id="imp", table_id="t", family="fact", text="q?", gold=Gold(kind="insufficient", text="42"),
                         language="en")
    assert prepare_gold(imperfect).items[0].number is None
    # a text gold read as yes/no keeps the question's context
    lakers = Question(id="lakers", table_id="t", family="fact", text="Did the Lakers win the 2001 title?",
                      gold=Gold(kind="text", text="Yes"), language="en")
    assert judge_answer("Yes, the Lakers did not win the 2001 title.", lakers).verdict == "uncertain"
