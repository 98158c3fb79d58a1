"""Place identity (issue 17): a place is kind + designators + free words, and two mentions relate neutrally.

The relation (`places.relate`) is a fact; whether it rejects the plan is the R-SEM rules' decision
(`rules/sem/_evidence.py`): another kind or designator from a pose name is CRITICAL, other free words only when the
same transfer shows that the program names things the instruction's way, and words that compare with nothing — a
Korean word with no English reading, an abbreviation, a vague "position" — never. The scenes are workplaces of their
own (a woodshop, a print shop, a parcel depot, a kitchen), written out in the naming styles of `semantic_scene`.
"""

from __future__ import annotations

import pytest

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.matching import same_word
from plan_verifier.semantic.names import name_objects, name_places
from plan_verifier.semantic.places import OTHER_DESIGNATOR, OTHER_KIND, OTHER_WORDS, SAME, UNCOMPARABLE, relate
from semantic_scene import Cycle, program

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]


def _destination(text: str):
    [task] = [t for t in read_instruction(text).tasks if t.destination is not None]
    return task.destination


def _named(name: str, carried: tuple[str, ...]):
    places = name_places(name, carried)
    assert places, name
    return places


@pytest.mark.parametrize(("instruction", "name", "carried", "relation"), [
    ("Put the chisel into slot 2.", "Chisel_Drawer3_Place", ("chisel",), OTHER_KIND),           # a slot is no drawer
    ("Put the chisel into drawer 2.", "Chisel_Drawer3_Place", ("chisel",), OTHER_DESIGNATOR),    # drawer 3 is not drawer 2
    ("Put the chisel into drawer 3.", "p_chisel_drawer3_place", ("chisel",), SAME),
    ("Put the chisel in the drawer.", "Chisel_Drawer3_Place", ("chisel",), SAME),                # the drawer: any of them
    ("Move the poster into the PET bin.", "Poster_ResidualBin_Drop", ("poster",), OTHER_WORDS),  # same kind, other words
    ("Move the poster into the paper bin.", "Poster_PaperBin_Drop", ("poster",), SAME),
    ("Move the poster to the output tray.", "Poster_OutfeedTray_Drop", ("poster",), SAME),       # qualifiers that correspond
    ("Move the parcel to the left chute.", "p_parcel_chute_r_place", ("parcel",), OTHER_DESIGNATOR),  # `_r`: the right one
    ("Move the parcel to the oven.", "Parcel_OvenTray_Drop", ("parcel",), SAME),                 # the tray of the oven
    ("Move the pot to the dish pit.", "Pot_Sink_Drop", ("pot",), UNCOMPARABLE),                  # a word no kind: no judgement
    ("Move the plank to the paint table.", "Plank_GlueStation_Drop", ("plank",), OTHER_WORDS),   # related kinds, other work
    ("Move the plank to the sanding station.", "Plank_Bench_Drop", ("plank",), UNCOMPARABLE),    # the station's bench, maybe
    ("Move the plank to the flipping bench.", "Plank_TurningStation_Drop", ("plank",), SAME),     # words for one another
    ("판자를 도색 테이블에 올려 줘.", "Plank_GlueStation_Drop", ("판자",), UNCOMPARABLE),          # Korean words: no judgement
    ("판자를 계량대로 옮겨 줘.", "Plank_Drum_Place", ("판자",), OTHER_KIND),                       # 계량대: a scale, not a bin
    ("판자를 계량대로 옮겨 줘.", "Plank_WeighingStation_Place", ("판자",), SAME),
    ("Move the pot to the measuring station.", "Pot_Gauge_Drop", ("pot",), UNCOMPARABLE),
    ("Move the plank to the test station.", "Plank_Tester_Drop", ("plank",), SAME),               # test ~ tester
    ("Move the plank to position 2.", "Plank_Pos_3", ("plank",), OTHER_DESIGNATOR),
    ("판자를 2번 슬롯에 넣어 줘.", "Plank_Bin3_Place", ("판자",), OTHER_KIND),
    ("판자를 세척대로 옮겨 줘.", "Plank_WashStand_Place", ("판자",), UNCOMPARABLE),               # Korean the vocabulary cannot read
    ("Move the parcel to the repair cart.", "p_parcel_cart_b_place", ("parcel",), UNCOMPARABLE),  # which cart "repair" means
    ("Move the parcel to the cart.", "p_parcel_cart_b_place", ("parcel",), SAME),                # any cart: cart B is one
    ("Move the parcel to cart A.", "p_parcel_cart_b_place", ("parcel",), OTHER_DESIGNATOR),      # `cart_b`: a letter label
    ("Move the parcel to the second cart.", "p_parcel_cart_b_place", ("parcel",), UNCOMPARABLE),  # a count and a letter: maybe one
    ("Move the parcel to cart #2.", "Parcel_CartB_Drop", ("parcel",), UNCOMPARABLE),
    ("Move the parcel to the second cart.", "p_parcel_cart_3_place", ("parcel",), OTHER_DESIGNATOR),  # 2 and 3 stay two
    ("소포를 두 번째 카트에 놓아.", "Parcel_CartB_Drop", ("소포",), UNCOMPARABLE),
    ("소포를 2번 카트에 놓아.", "Parcel_Cart3_Drop", ("소포",), OTHER_DESIGNATOR),
    ("소포를 A 카트에 놓아.", "Parcel_CartC_Drop", ("소포",), OTHER_DESIGNATOR),
    ("Set the vase on the bottom shelf.", "Vase_KilnBottom_Place", ("vase",), SAME),             # the kiln's lower shelf
    ("Set the vase on the top shelf.", "Vase_KilnBottom_Place", ("vase",), OTHER_DESIGNATOR),    # its top is not its bottom
    ("꽃병을 냉장고 아래칸에 넣어 줘.", "Vase_FridgeTop_Place", ("꽃병",), OTHER_DESIGNATOR),        # 아래칸: the bottom compartment
    ("Put the menu on the cutter.", "Menu_Guillotine_Place", ("menu",), UNCOMPARABLE),         # two kind-less words: maybe synonyms
    ("Move the poster to the capper.", "Poster_Labeller_Drop", ("poster",), UNCOMPARABLE),     # ... or not: the words cannot say
    ("Put the kit on the pickup tray.", "Kit_PilotHandover_Release", ("kit",), OTHER_KIND),    # handed to someone, not set down
    ("키트를 픽업 트레이에 올려 줘.", "Kit_PilotHandover_Release", ("키트",), OTHER_KIND),
    ("Put the kit on the counter.", "Kit_CounterHandover_Release", ("kit",), SAME),            # the counter's hand-over point
    ("Hand the kit to the pilot.", "Kit_PilotHandover_Release", ("kit",), SAME),
    ("Load the parcel into the van.", "Parcel_VanCrate_Place", ("parcel",), SAME),              # the van's crate
    ("소포를 트럭에 실어 줘.", "Parcel_DeliveryCrate_Place", ("소포",), UNCOMPARABLE),            # a vehicle holds its crates
    # related kinds each told by something of its own, nothing in common: two places (weak, as other words are)
    ("Put the file on shelf A.", "File_RecordDrawerUpper_Place", ("file",), OTHER_WORDS),
    ("Put the file in the spare box.", "p_file_drawer_1_place", ("file",), OTHER_WORDS),
    ("Put the file on the top shelf.", "File_DrawerTop_Place", ("file",), SAME),                # the top one on both
    ("Put the file on shelf 2.", "File_DrawerB_Place", ("file",), UNCOMPARABLE),                # a number and a letter
    ("Move the plate to the plate nest.", "pn_lo", ("plate",), UNCOMPARABLE),                   # abbreviations: anything
    ("파일을 반납 상자에 넣어.", "File_ReturnsDrawer_Place", ("파일",), UNCOMPARABLE),            # Korean words: no judgement
    # a known kind against a place the vocabulary has no kind for, both described in words none of which correspond
    ("Move the bow to the rehairing vise.", "Bow_PolishingWheel_Place", ("bow",), OTHER_WORDS),
    ("Move the bow to the vise.", "Bow_PolishingWheel_Place", ("bow",), UNCOMPARABLE),          # the vise alone: maybe its wheel
    ("Move the bow to the rehairing vise.", "Bow_Wheel_Place", ("bow",), UNCOMPARABLE),
    ("Move the loco to the rolling road.", "Loco_PaintBooth_Place", ("loco",), OTHER_WORDS),    # ... either way round
    ("Move the kettle to the minibar stand.", "Kettle_LaundryBin_Release", ("kettle",), OTHER_KIND),  # a stand is a rack
    ("Move the kettle to the minibar rack.", "Kettle_MinibarStand_Release", ("kettle",), SAME),
    ("Move the card into the waste tub.", "Card_ShellBin_Release", ("card",), OTHER_WORDS),   # a kind-less tub, described
    # a mat is a support laid on a bench or in a tray
    ("Put the kit on the counter.", "Kit_CounterMat_Release", ("kit",), SAME),
    ("Hand the kit to the pilot.", "Kit_FeltMat_Release", ("kit",), OTHER_KIND),
    ("키트를 손님한테 건네 줘.", "Kit_CounterMat_Release", ("키트",), OTHER_KIND),
    # a hand-over point is where a person takes the thing: never a tray it is left on, whatever words they share
    ("Take the parcel to the dispatch hand-over point.", "Parcel_DispatchTray_Place", ("parcel",), OTHER_KIND),
    ("Take the parcel to the dispatch hand-over point.", "Parcel_DispatchHandover_Place", ("parcel",), SAME),
    # an abbreviation beside a readable word says nothing either way, the readable word still differs
    ("Move the lamp to the glaze station.", "Lamp_UvCureStation_Place", ("lamp",), OTHER_WORDS),
    ("Move the lamp to the UV cure station.", "Lamp_UvCureStation_Place", ("lamp",), SAME),
    ("Move the lamp to the glaze station.", "Lamp_UvStation_Place", ("lamp",), SAME),
    # a fume cupboard is the British fume hood, no cupboard of shelves
    ("Put the reagent bottle in the fume hood.", "ReagentBottle_FumeCupboard_Release", ("bottle",), SAME),
    ("시약병을 흄 후드에 넣어 줘.", "p_reagent_bottle_fume_cupboard_place", ("시약병",), SAME),
])
def test_relations(instruction, name, carried, relation) -> None:
    want = _destination(instruction)
    relations = {relate(want, got).kind for got in _named(name, carried)}
    assert relation in relations and (relation != UNCOMPARABLE or relations <= {UNCOMPARABLE}), relations


@pytest.mark.parametrize(("name", "carried", "kinds"), [
    ("PouchCell_LaserMarker_Release", ("pouch", "cell"), [("printer", None)]),       # "cell" is the object here, not a station
    ("p_cyl_cell_laser_mark_pick", ("cell",), [("printer", None)]),                    # an abbreviated object before its noun
    ("Station2NestB_Release", ("fan",), [("station", "2"), ("fixture", "b")]),         # a place within a place
    ("Vial2_RackBSlot2_Grasp", ("vial",), [("shelf", "b"), ("slot", "2")]),
    ("p_bin1_2_drop", ("bolt",), [("bin", "1")]),                                      # the second drop in bin 1
    ("Formation_Rack_Pouch_Cell_Pick", ("pouch", "cell"), [("shelf", None)]),          # the place written first
    ("MuffinTray_DisplayBottom_Release", ("muffin", "tray"), [(None, None)]),          # the object named like a place
    ("p_bowl_drying_rack2_place", ("bowl",), [("shelf", "2")]),                         # snake case with a numbered word: one place
    ("p_left_glove_locker2_pick", ("glove",), [("shelf", "2")]),                         # a side before the object is the object's
    ("p_chute_offcut_box_place", (), [("container:box", None)]),                      # a box heading a place's compound: a place
    ("p_chute_offcut_box_place", ("상자",), [("chute", None)]),                         # ... unless the box is what is carried
    ("p_gift_box_place", (), [(None, None)]),                                          # no place noun: the gift box is the thing
    ("Vial_ColdBox_Place", ("vial",), [("fridge", None)]),                             # a place of two words keeps its kind
    ("p_kit_engineer_tray_place", ("kit",), [("tray", None)]),                         # a person's tray: one place, a tray
    ("Kit_CustomerCounter_Release", ("kit",), [("table", None)]),
])
def test_names_are_read_against_the_instructed_object(name, carried, kinds) -> None:
    assert [(p.kind, p.label) for p in name_places(name, carried)] == kinds


def test_points_numbered_in_order_name_no_place() -> None:
    assert name_places("P4") == name_places("J2") == ()


def test_an_object_named_like_a_place_is_the_object() -> None:
    [(obj, _)] = name_objects("MuffinTray_DisplayBottom_Release", ("croissant", "tray"))
    assert obj.noun == "tray" and obj.words == ("muffin", "tray")
    [(obj, _)] = name_objects("CylCell_OcvTester_Grasp", ("pouch", "cell"))
    assert obj.words == ("cyl", "cell")


def test_a_name_that_says_nothing_of_the_asked_thing_names_its_own_in_one_compound() -> None:
    [(obj, known)] = name_objects("p_spare_knob_shelf_1_pick", ("brass", "hinge"))
    assert (obj.noun, obj.words, known) == ("knob", ("spare", "knob"), False)
    [(obj, _)] = name_objects("SpareKnob_Shelf1_Grasp", ("경첩",))
    assert obj.words == ("spare", "knob")


def test_a_side_after_a_place_in_a_name_is_that_place_s() -> None:
    from plan_verifier.semantic.names import identifier_evidence

    objects, places = identifier_evidence("p_coupon_cart_right_pick")
    assert [o.noun for o, _ in objects] == ["coupon"] and [(p.kind, p.side) for p in places] == [("cart", "right")]
    assert [(p.kind, p.side) for p in identifier_evidence("p_tray_left_bin_pick")[1]] == [("tray", None), ("bin", "left")]


@pytest.mark.parametrize(("a", "b", "same"), [
    ("alu", "aluminium", True), ("stn", "station", True), ("frdg", "fridge", True), ("sinter", "sintering", True),
    ("chkweigh", "checkweigher", True), ("outfeed", "output", True), ("ng", "reject", True),
    ("크라운", "crown", True), ("카톤", "carton", True), ("스테이션", "station", True), ("트레이", "tray", True),
    ("cart", "carton", False), ("pin", "pinion", False), ("plate", "pallet", False), ("모포", "blanket", False),
    # a noun the vocabulary knows is no cut-off of a longer word unless the rest derives it ("rack" / racket, "bin" / binder)
    ("rack", "racket", False), ("bin", "binder", False), ("tray", "trays", True), ("polish", "polishing", True),
    ("재라벨", "relabel", True), ("재스캔", "rescan", True), ("재라벨", "label", False),  # the Sino-Korean prefix 재- is re-
    ("렌즈", "lens", True),
    # both words known to the vocabulary as different kinds: no sound alike makes a tray a drawer
    ("트레이", "drawer", False), ("서랍", "drawer", True), ("드럼통", "drum", True),
])
def test_words_correspond_across_abbreviation_and_language(a, b, same) -> None:
    assert same_word(a, b) is same


# --------------------------------------------------------------------------- judged in programs


def _findings(plan: str, instruction: str):
    return Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction).findings


def _critical(plan: str, instruction: str) -> list[str]:
    return sorted({f.rule_id for f in _findings(plan, instruction) if f.severity is Severity.CRITICAL})


_SAW, _BENCH, _PLANER, _RACK = (480, -220, 60), (620, 160, 80), (700, -120, 120), (540, 330, 150)
NAMED = ("define_named", "named_inline", "positional_assign", "camel_case")


@pytest.mark.parametrize("style", NAMED)
def test_a_place_of_another_kind_is_rejected_and_the_right_one_approved(style) -> None:
    wrong = program([Cycle("walnut plank", "saw table", "workbench", pick=_SAW, place=_PLANER)], style)
    right = program([Cycle("walnut plank", "saw table", "glue rack", pick=_SAW, place=_RACK)], style)
    for text in ("Move the walnut plank from the saw table to the glue rack.", "Take the walnut plank off the saw table and leave it on the glue rack."):
        assert "R-SEM-003" in _critical(wrong, text), (style, text)
        assert _critical(right, text) == [], (style, text)


@pytest.mark.parametrize("style", NAMED)
def test_other_words_of_one_kind_need_the_rest_of_the_transfer_named_the_instruction_s_way(style) -> None:
    # the program names the object and the source as the instruction does, and the bin in other words: another bin
    wrong = program([Cycle("offcut", "saw table", "scrap crate", pick=_SAW, place=_BENCH)], style)
    assert "R-SEM-003" in _critical(wrong, "Move the offcut from the saw table into the firewood crate.")
    # names that follow nothing of the instruction (another object, no source): the other words decide nothing
    unrelated = program([Cycle("sprocket", "shelf", "scrap crate", pick=_RACK, place=_BENCH)], style)
    assert "R-SEM-003" not in _critical(unrelated, "Put the offcut into the firewood crate.")


@pytest.mark.parametrize("style", NAMED)
def test_related_kinds_in_other_words_need_the_rest_of_the_transfer_named_the_instruction_s_way(style) -> None:
    # a bench may be a station's, but the glue station is not the paint table: the object and source named the
    # instruction's way, the destination in other words of a related kind
    wrong = program([Cycle("lantern", "red cart", "glue station", pick=_SAW, place=_BENCH)], style)
    right = program([Cycle("lantern", "red cart", "paint table", pick=_SAW, place=_BENCH)], style)
    text = "Move the lantern from the red cart to the paint table."
    assert "R-SEM-003" in _critical(wrong, text), style
    assert _critical(right, text) == [], style
    assert _critical(program([Cycle("lantern", "red cart", "turning station", pick=_SAW, place=_BENCH)], style),
                     "Move the lantern from the red cart to the flipping bench.") == [], style


@pytest.mark.parametrize("style", NAMED)
def test_a_place_word_no_kind_explains_is_never_a_contradiction(style) -> None:
    plan = program([Cycle("stockpot", "stove", "dish pit", pick=_SAW, place=_BENCH)], style)
    for text in ("Carry the stockpot from the stove over to the sink area.", "냄비를 가스레인지에서 세척대로 옮겨 줘.",
                 "Put the stockpot at the washing-up station."):
        assert _critical(plan, text) == [], (style, text)


@pytest.mark.parametrize("style", NAMED)
def test_korean_instructions_judge_by_kind(style) -> None:
    wrong = program([Cycle("parcel", "conveyor", "bin 2", pick=_SAW, place=_BENCH)], style)  # a bin, not a cart
    right = program([Cycle("parcel", "conveyor", "cart 3", pick=_SAW, place=_BENCH)], style)
    text = "택배 상자를 컨베이어에서 3번 카트로 옮겨 줘."
    assert "R-SEM-003" in _critical(wrong, text)
    assert _critical(right, text) == []


@pytest.mark.parametrize("style", NAMED)
def test_leave_it_there_makes_a_later_move_of_it_an_unrequested_task(style) -> None:
    weigh = Cycle("parcel", "conveyor", "scale 2", pick=_SAW, place=_BENCH)
    text = "Put the parcel from the conveyor on scale 2 and leave it there."
    assert _critical(program([weigh], style), text) == []
    onward = program([weigh, Cycle("parcel", "scale 2", "cart 3", pick=_BENCH, place=_RACK)], style)
    assert "R-SEM-007" in _critical(onward, text)


@pytest.mark.parametrize("style", NAMED)
def test_nothing_else_is_no_second_task(style) -> None:
    extra = program([Cycle("end plate", "magazine", "fixture", pick=_SAW, place=_BENCH),
                     Cycle("gasket", "tray", "fixture", pick=_RACK, place=_BENCH)], style)
    assert "R-SEM-007" in _critical(extra, "Just put the end plate from the magazine on the fixture, nothing else.")


@pytest.mark.parametrize("style", ("define_named", "positional_assign", "camel_case"))
def test_a_designator_the_name_contradicts_beside_a_word_it_shares_is_a_mismatch(style) -> None:
    # "slot 2 of the drying rack" against a name of rack slot 1: the rack matches only by its word, the slot is another
    said = "Set the mug down in slot 2 of the drying rack."
    wrong = program([Cycle("mug", "dish pit", "drying rack slot 1", pick=_SAW, place=_BENCH)], style)
    right = program([Cycle("mug", "dish pit", "drying rack slot 2", pick=_SAW, place=_BENCH)], style)
    assert "R-SEM-003" in _critical(wrong, said), style
    assert not _critical(right, said), style


def test_a_numbered_word_in_a_snake_case_name_belongs_to_the_place_before_it() -> None:
    said = "Hang the apron on coat rack 2."
    wrong = program([Cycle("apron", "dish pit", "coat rack 1", pick=_SAW, place=_BENCH)], "positional_assign")
    assert "R-SEM-003" in _critical(wrong, said)


def test_the_carried_things_words_in_a_comment_are_no_words_of_the_place() -> None:
    # "예약 도서 2번 분류함 위로 이송": the reserved book, then bin 2 — "예약" (reserved) does not make it the reserved-books shelf
    from plan_verifier.semantic.activity import Named
    from plan_verifier.semantic.grounding import _without_carried
    from plan_verifier.semantic.names import text_evidence

    [(_, place)] = text_evidence("예약 도서 2번 분류함 위로 이송")[1]
    named = _without_carried(Named("예약 도서 2번 분류함 위로 이송", "comment", 9, None, place=place), ("예약", "도서"))
    assert "예약" not in named.place.words and named.place.kind == "bin"
    assert relate(_destination("예약 도서는 예약 선반 2번 칸에 꽂아 주세요."), named.place).kind == OTHER_KIND
