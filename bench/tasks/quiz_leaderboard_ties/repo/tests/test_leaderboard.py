import unittest

from leaderboard import Place, rank, render, totals, winners


class TotalsTest(unittest.TestCase):
    def test_adds_up_the_rounds(self):
        rounds = [{"Quizzly Bears": 8, "Les Quizerables": 6}, {"Quizzly Bears": 5, "Les Quizerables": 9, "Late Ones": 7}]
        self.assertEqual(totals(rounds), {"Quizzly Bears": 13, "Les Quizerables": 15, "Late Ones": 7})

    def test_negative_scores_are_refused(self):
        with self.assertRaises(ValueError):
            totals([{"Quizzly Bears": -1}])


class RankTest(unittest.TestCase):
    def test_highest_score_first(self):
        self.assertEqual(rank({"b": 10, "a": 30, "c": 20}),
                         [Place(1, "a", 30), Place(2, "c", 20), Place(3, "b", 10)])

    def test_ties_share_a_rank(self):
        places = rank({"Owls": 40, "Foxes": 52, "Badgers": 40, "Hares": 33, "Moles": 40})
        self.assertEqual([(p.rank, p.team) for p in places],
                         [(1, "Foxes"), (2, "Badgers"), (2, "Moles"), (2, "Owls"), (5, "Hares")])

    def test_a_tie_for_first_place_has_two_winners(self):
        places = rank({"Owls": 40, "foxes": 40, "Hares": 12})
        self.assertEqual(winners(places), ["foxes", "Owls"])
        self.assertEqual(places[2], Place(3, "Hares", 12))

    def test_empty(self):
        self.assertEqual(rank({}), [])


class RenderTest(unittest.TestCase):
    def test_render(self):
        self.assertEqual(render([Place(1, "Foxes", 52), Place(2, "Badgers", 40)]),
                         " 1. Foxes     52\n 2. Badgers   40")


if __name__ == "__main__":
    unittest.main()
