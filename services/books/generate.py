"""Deterministic generator for the «Книги» (books) catalog.

Run ``python -m services.books.generate`` to (re)write ``data/catalog.json``;
``python -m services.books.generate --check`` exits 1 if the committed file is stale.

226 items (150 works in text editions, 76 of them also as audiobooks), 75 authors and 86
series, all synthetic. Every author carries the case forms of their name, made by
pytrovich (``pip install pytrovich``), so a task can say «книгу Веры Рудневой». Prices of
one author's items are all different, so "the cheapest / most expensive book by this
author" always has one answer.
"""

from __future__ import annotations

import colorsys
import dataclasses
import random
from pathlib import Path
from typing import NotRequired, TypedDict

from pytrovich.enums import Case, Gender, NamePart
from pytrovich.maker import PetrovichDeclinationMaker

from services.books.catalog import Author, CatalogData, Item, Series, Work
from services.kit.catalog import (
    ReviewPhrases,
    rows,
    star_counts,
    write_questions,
    write_reviews,
)
from services.kit.generate import dumps, write_or_check

SEED = 20260903
CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"
N_AUTHORS, N_SERIES, N_WORKS, N_AUDIO = 75, 86, 150, 76

CASES = {
    "gen": Case.GENITIVE,
    "dat": Case.DATIVE,
    "acc": Case.ACCUSATIVE,
    "ins": Case.INSTRUMENTAL,
    "pre": Case.PREPOSITIONAL,
}
MALE = [
    "Андрей",
    "Борис",
    "Глеб",
    "Денис",
    "Егор",
    "Захар",
    "Игорь",
    "Кирилл",
    "Лев",
    "Матвей",
    "Никита",
    "Олег",
    "Павел",
    "Роман",
    "Семён",
    "Тимофей",
    "Фёдор",
    "Юрий",
    "Ярослав",
    "Аркадий",
    "Вадим",
    "Всеволод",
    "Степан",
    "Илья",
]
FEMALE = [
    "Вера",
    "Алина",
    "Дарья",
    "Евгения",
    "Жанна",
    "Зоя",
    "Инна",
    "Ксения",
    "Лидия",
    "Майя",
    "Нина",
    "Ольга",
    "Полина",
    "Раиса",
    "Светлана",
    "Таисия",
    "Ульяна",
    "Юлия",
    "Яна",
    "Варвара",
    "Галина",
    "Елизавета",
    "Мария",
    "Софья",
]
# Male surname forms; the female form is derived (-ов → -ова, -ин → -ина, -ский → -ская).
SURNAMES = [
    "Руднев",
    "Ковалёв",
    "Журавлёв",
    "Белозёров",
    "Гладышев",
    "Дорохов",
    "Ермаков",
    "Зимин",
    "Лапин",
    "Мельников",
    "Осокин",
    "Пахомов",
    "Савин",
    "Тарасов",
    "Уваров",
    "Фомин",
    "Хромов",
    "Шестаков",
    "Щукин",
    "Юдин",
    "Яхонтов",
    "Гусев",
    "Дьячков",
    "Жилин",
    "Кречетов",
    "Лыков",
    "Мохов",
    "Назаров",
    "Огнев",
    "Прудников",
    "Рябинин",
    "Ушаков",
    "Филатов",
    "Черемисин",
    "Шубин",
    "Астахов",
    "Вишняков",
    "Горелов",
    "Елагин",
    "Заречнов",
    "Ларионов",
    "Панкратов",
    "Родионов",
    "Селиверстов",
    "Устинов",
    "Харитонов",
    "Цветков",
    "Чистяков",
    "Шилов",
    "Широков",
    "Загорский",
    "Обольский",
    "Березинский",
    "Луговской",
    "Ветлугин",
    "Кандауров",
    "Мартынов",
    "Полозов",
    "Суханов",
    "Тетерин",
    "Бочаров",
    "Воронин",
    "Грачёв",
    "Демидов",
    "Ефремов",
    "Карташов",
    "Латышев",
    "Медведев",
    "Нестеров",
    "Овчинников",
    "Пестов",
    "Рожков",
    "Сафонов",
    "Трофимов",
    "Федотов",
    "Худяков",
    "Чеботарёв",
    "Шарапов",
]
# adjective: nominative m, f, n; genitive m/n, f
ADJECTIVES = [
    ("Тихий", "Тихая", "Тихое", "Тихого", "Тихой"),
    ("Северный", "Северная", "Северное", "Северного", "Северной"),
    ("Последний", "Последняя", "Последнее", "Последнего", "Последней"),
    ("Зимний", "Зимняя", "Зимнее", "Зимнего", "Зимней"),
    ("Серебряный", "Серебряная", "Серебряное", "Серебряного", "Серебряной"),
    ("Долгий", "Долгая", "Долгое", "Долгого", "Долгой"),
    ("Забытый", "Забытая", "Забытое", "Забытого", "Забытой"),
    ("Стеклянный", "Стеклянная", "Стеклянное", "Стеклянного", "Стеклянной"),
    ("Ночной", "Ночная", "Ночное", "Ночного", "Ночной"),
    ("Дальний", "Дальняя", "Дальнее", "Дальнего", "Дальней"),
    ("Медный", "Медная", "Медное", "Медного", "Медной"),
    ("Янтарный", "Янтарная", "Янтарное", "Янтарного", "Янтарной"),
    ("Пустой", "Пустая", "Пустое", "Пустого", "Пустой"),
    ("Горький", "Горькая", "Горькое", "Горького", "Горькой"),
    ("Соляной", "Соляная", "Соляное", "Соляного", "Соляной"),
]
# noun: nominative, genitive, gender
NOUNS = [
    ("сад", "сада", "m"),
    ("маяк", "маяка", "m"),
    ("остров", "острова", "m"),
    ("перевал", "перевала", "m"),
    ("город", "города", "m"),
    ("колодец", "колодца", "m"),
    ("вокзал", "вокзала", "m"),
    ("берег", "берега", "m"),
    ("дом", "дома", "m"),
    ("ключ", "ключа", "m"),
    ("река", "реки", "f"),
    ("гавань", "гавани", "f"),
    ("дорога", "дороги", "f"),
    ("станция", "станции", "f"),
    ("библиотека", "библиотеки", "f"),
    ("башня", "башни", "f"),
    ("улица", "улицы", "f"),
    ("метель", "метели", "f"),
    ("окно", "окна", "n"),
    ("озеро", "озера", "n"),
    ("зеркало", "зеркала", "n"),
    ("поле", "поля", "n"),
    ("лето", "лета", "n"),
    ("эхо", "эха", "n"),
]
HEADS = [
    "Тайна",
    "Хранитель",
    "Песня",
    "Дневник",
    "Карта",
    "Письма",
    "Часы",
    "Тень",
    "Голоса",
    "Память",
    "Хозяйка",
    "Пленник",
    "Свет",
    "Сны",
]
SERIES_HEADS = ["Хроники", "Тайны", "Легенды", "Истории", "Записки", "Сказания"]
GENRES = ["Детектив", "Фантастика", "Роман", "Приключения", "Исторический роман", "Фэнтези"]
LANGUAGES = {"ru": "Русский", "en": "Английский", "fr": "Французский"}
FORMATS = {"text": "Электронная книга", "audio": "Аудиокнига"}
FIRST_AUTHOR = ("Вера", "Руднева", "female")  # declined in prompts: «книгу Веры Рудневой»


class _Work(TypedDict):
    """A work, whose editions are the items; its place in its series is given last."""

    id: str
    title: str
    author_id: str
    series_id: str
    genre: str
    language: str
    year: int
    series_index: NotRequired[int]


# A work's texts (its description, tags, quotes, fragment, reviews and questions) come from
# these, with an RNG of its own, so that the catalog's other draws stay as they were.
PLOTS: dict[str, tuple[str, ...]] = {
    "Детектив": (
        "Тихий город потрясает исчезновение, и следователю приходится разбираться в чужих тайнах.",
        "Старое дело, закрытое много лет назад, неожиданно получает продолжение.",
        "Каждый в доме что-то скрывает, а времени до следующего шага преступника всё меньше.",
    ),
    "Фантастика": (
        "Экипаж дальней станции получает сигнал, которого не должно существовать.",
        "В мире, где память можно купить, один человек решает вспомнить всё сам.",
        "Первый контакт оказывается совсем не таким, каким его представляли учёные.",
    ),
    "Роман": (
        "История одной семьи на фоне перемен, которые никого не оставляют прежним.",
        "Двое встречаются случайно, и эта встреча меняет их жизни на годы вперёд.",
        "Героиня возвращается в родной город и заново узнаёт людей, которых оставила.",
    ),
    "Приключения": (
        "Старая карта ведёт героев через горы, реки и собственные страхи.",
        "Путешествие, задуманное на одно лето, превращается в поход длиною в жизнь.",
        "Команда отправляется на поиски пропавшей экспедиции, не зная, что найдёт.",
    ),
    "Исторический роман": (
        "Купеческий род переживает войны, пожары и перемены власти.",
        "Судьба молодого офицера переплетается с событиями, изменившими страну.",
        "Жизнь провинциального города за сто лет, увиденная глазами трёх поколений.",
    ),
    "Фэнтези": (
        "Юная травница узнаёт, что её дар нужен обоим враждующим королевствам.",
        "Древний договор с духами леса истекает, и кому-то придётся его продлить.",
        "Ученик мага отправляется в путь, чтобы вернуть украденное слово силы.",
    ),
}
TAGS: dict[str, tuple[str, ...]] = {
    "Детектив": ("расследование", "тайна", "психологический триллер", "маленький город"),
    "Фантастика": ("космос", "будущее", "искусственный разум", "другие миры"),
    "Роман": ("семейная сага", "про любовь", "взросление", "современная проза"),
    "Приключения": ("путешествия", "клады и сокровища", "дружба", "экспедиция"),
    "Исторический роман": ("история России", "XIX век", "судьбы людей", "эпоха перемен"),
    "Фэнтези": ("магия", "драконы", "волшебные миры", "героическое фэнтези"),
}
COMMON_TAGS = ("бестселлер", "экранизация", "для подростков", "лёгкое чтение", "премия года")
SENTENCES = (
    "Утро выдалось серым, и туман долго не уходил с реки.",
    "Она остановилась у двери, прислушиваясь к шагам на лестнице.",
    "— Ты уверен, что нам сюда? — спросил он, не поднимая глаз от карты.",
    "В комнате пахло книгами, воском и чем-то давно забытым.",
    "Письмо пришло без обратного адреса, но почерк она узнала сразу.",
    "Никто в городе не помнил, когда в последний раз зажигали этот свет.",
    "Ветер переменился, и паруса на горизонте стали чуть ближе.",
    "Он пересчитал монеты дважды и понял, что денег хватит только на дорогу.",
    "Старый смотритель молчал, будто ждал, что мы догадаемся сами.",
    "К вечеру дождь кончился, и над крышами повисла тонкая луна.",
    "Всё началось с того, что часы на площади пошли назад.",
    "— Мы не успеем, — сказала она. — Но попробовать стоит.",
)
QUOTES = (
    "Иногда, чтобы найти дорогу, нужно сначала как следует заблудиться.",
    "Память — единственная вещь, которую нельзя отнять, но можно потерять.",
    "Смелость — это не отсутствие страха, а решение идти дальше.",
    "Дом — это не стены, а люди, которые ждут тебя с ужином.",
    "Каждая тайна хочет быть раскрытой, просто не каждому.",
    "Самые важные разговоры случаются на кухне после полуночи.",
    "Мир больше, чем кажется из окна, и меньше, чем кажется на карте.",
    "Прошлое не исчезает: оно просто ждёт своей очереди.",
)
PUBLISHERS = ("Северная пристань", "Книжный двор", "Страница", "Светлячок", "Полка и перо")
PHRASES = ReviewPhrases(
    texts={
        5: (
            "Прочитала за два вечера, не могла оторваться. Жду продолжения серии!",
            "Живые герои, хороший язык и неожиданный финал. Рекомендую.",
            "Одна из лучших книг, что я читал в этом году.",
            "Атмосферно и умно. Перечитаю ещё не раз.",
            "Очень понравилось, особенно вторая половина. Автор растёт от книги к книге.",
        ),
        3: (
            "Начало затянуто, но потом читается легко. Финал предсказуем.",
            "Неплохо, но от автора ждал большего. Как лёгкое чтение подойдёт.",
            "Интересная идея, но героям не хватает глубины.",
        ),
        1: (
            "Не моё: бросила на середине, слишком медленно развивается сюжет.",
            "Ожидания не оправдались, сюжет разваливается к концу.",
        ),
    },
    pros=("Сюжет", "Язык", "Герои", "Атмосфера", "Финал", "Лёгкость чтения"),
    cons=("Затянутое начало", "Мало действия", "Открытый финал", "Нет", "Объём"),
    questions=(
        (
            "Можно ли читать эту книгу отдельно от серии?",
            "Да, сюжет законченный, но герои встречаются и в других книгах.",
        ),
        ("Для какого возраста книга?", "Издательство рекомендует её читателям от 16 лет."),
        (
            "Будет ли продолжение?",
            "Автор работает над следующей книгой серии, выход ожидается в следующем году.",
        ),
        (
            "Есть ли в книге иллюстрации?",
            "В электронной версии есть карта и несколько иллюстраций.",
        ),
        (
            "Чем отличается от бумажного издания?",
            "Текст полный, без сокращений; исправлены опечатки первого тиража.",
        ),
    ),
    answered_by="Издательство",
)


def work_texts(work_id: str, title: str, genre: str, series: str) -> Work:
    """A work's description, tags, quotes, fragment, reviews and questions."""
    rng = random.Random(f"{SEED}-{work_id}")
    plot = rng.choice(PLOTS[genre])
    tags = rng.sample(TAGS[genre], 3) + rng.sample(COMMON_TAGS, 2)
    lines = rng.sample(SENTENCES, 12)
    paragraphs = [" ".join(lines[n : n + 3]) for n in range(0, 12, 3)]
    rating = rng.uniform(3.6, 4.9)
    return Work(
        description=f"«{title}» — книга из серии «{series}». {plot} "
        + rng.choice(
            (
                "Роман, который читается на одном дыхании.",
                "Книга о выборе, доверии и цене, которую приходится платить за правду.",
                "Судьбы героев переплетаются, и до последней страницы неясно, чем всё кончится.",
            )
        ),
        tags=tags,
        quotes=rng.sample(QUOTES, 3),
        fragment=paragraphs,
        reviews=rows(write_reviews(rng, rating, rng.randint(3, 6), PHRASES, 2022)),
        questions=rows(write_questions(rng, rng.randint(1, 3), PHRASES, 2022)),
    )


def edition_facts(item_id: str, fmt: str) -> dict[str, str]:
    """An edition's ISBN, publisher and age mark (an RNG of its own)."""
    rng = random.Random(f"{SEED}-edition-{item_id}")
    digits = "978" + "".join(str(rng.randrange(10)) for _ in range(9))
    check = (10 - sum(int(d) * (3 if n % 2 else 1) for n, d in enumerate(digits)) % 10) % 10
    return {
        "isbn": f"{digits[:3]}-{digits[3]}-{digits[4:8]}-{digits[8:]}-{check}",
        "publisher": rng.choice(PUBLISHERS) + (" Аудио" if fmt == "audio" else ""),
        "age": rng.choice(("12+", "16+", "16+", "18+")),
    }


def narrator(first: str, surname: str) -> str:
    """A full name whose surname agrees with the first name's gender («Майя Тетерина»)."""
    return f"{first} {female(surname) if first in FEMALE else surname}"


def female(surname: str) -> str:
    if surname.endswith("ский"):
        return surname[:-4] + "ская"
    if surname.endswith("ской"):
        return surname[:-4] + "ская"
    return surname + "а"


def case_forms(first: str, last: str, gender: str) -> dict[str, str]:
    maker = PetrovichDeclinationMaker()
    sex = Gender.FEMALE if gender == "female" else Gender.MALE
    return {
        key: f"{maker.make(NamePart.FIRSTNAME, sex, case, first)} "
        f"{maker.make(NamePart.LASTNAME, sex, case, last)}"
        for key, case in CASES.items()
    }


def _color(rng: random.Random) -> str:
    r, g, b = colorsys.hls_to_rgb(rng.random(), rng.uniform(0.32, 0.45), rng.uniform(0.35, 0.6))
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (r, g, b)))


def _gen_phrase(adj: tuple[str, ...], noun: tuple[str, str, str]) -> str:
    return f"{adj[4] if noun[2] == 'f' else adj[3]} {noun[1]}"


def _title(rng: random.Random) -> str:
    adj, noun = rng.choice(ADJECTIVES), rng.choice(NOUNS)
    if rng.random() < 0.4:
        word = {"m": adj[0], "f": adj[1], "n": adj[2]}[noun[2]]
        return f"{word} {noun[0]}"
    return f"{rng.choice(HEADS)} {_gen_phrase(adj, noun).lower()}"


def build_catalog() -> CatalogData:
    """The whole catalog as plain JSON-ready data. Pure and deterministic."""
    rng = random.Random(SEED)
    people: set[tuple[str, str]] = {FIRST_AUTHOR[:2]}
    authors: list[Author] = []
    pool = list(SURNAMES)
    rng.shuffle(pool)
    pool.remove("Руднев")
    for n in range(N_AUTHORS):
        if n == 0:
            first, last, gender = FIRST_AUTHOR
        else:
            gender = rng.choice(["male", "female"])
            first = rng.choice(MALE if gender == "male" else FEMALE)
            surname = pool.pop()
            last = female(surname) if gender == "female" else surname
        people.add((first, last))
        authors.append(
            Author(
                id=f"a-{n + 1:02d}",
                first=first,
                last=last,
                name=f"{first} {last}",
                gender=gender,
                cases=case_forms(first, last, gender),
            )
        )
    # series: one per author, a second one for the first few
    series: list[Series] = []
    names: set[str] = set()
    owners = [a.id for a in authors] + [a.id for a in authors[: N_SERIES - N_AUTHORS]]
    for n, owner in enumerate(owners):
        while True:
            adj, noun = rng.choice(ADJECTIVES), rng.choice(NOUNS)
            phrase = _gen_phrase(adj, noun)
            name = f"{rng.choice(SERIES_HEADS)} {phrase[0].upper()}{phrase[1:]}"
            if name not in names:
                names.add(name)
                break
        series.append(Series(id=f"s-{n + 1:02d}", name=name, author_id=owner))
    # works: one per series, the rest spread at random
    homes = [s.id for s in series] + [rng.choice(series).id for _ in range(N_WORKS - N_SERIES)]
    rng.shuffle(homes)
    by_series = {s.id: s for s in series}
    titles: set[str] = set()
    works: list[_Work] = []
    for n, home in enumerate(homes):
        title = _title(rng)
        while title in titles:
            title = _title(rng)
        titles.add(title)
        works.append(
            {
                "id": f"w-{n + 1:03d}",
                "title": title,
                "author_id": by_series[home].author_id,
                "series_id": home,
                "genre": rng.choice(GENRES),
                "language": rng.choices(list(LANGUAGES), [85, 10, 5])[0],
                "year": rng.randint(2008, 2026),
            }
        )
    counters: dict[str, int] = {}
    for work in sorted(works, key=lambda w: (w["series_id"], w["year"], w["id"])):
        counters[work["series_id"]] = counters.get(work["series_id"], 0) + 1
        work["series_index"] = counters[work["series_id"]]
    audio_works = set(rng.sample([w["id"] for w in works], N_AUDIO))
    # items: a text edition of every work, an audio edition of some
    editions = [(w, "text") for w in works]
    editions += [(w, "audio") for w in works if w["id"] in audio_works]
    rng.shuffle(editions)
    prices: dict[str, set[int]] = {}
    items: list[Item] = []
    narrators = [narrator(rng.choice(MALE + FEMALE), rng.choice(SURNAMES)) for _ in range(12)]
    for n, (work, fmt) in enumerate(editions, start=1):
        taken = prices.setdefault(work["author_id"], set())
        low, high = (149, 799) if fmt == "text" else (249, 999)
        price = rng.randrange(low, high, 10)
        while price in taken:
            price = rng.randrange(low, high, 10)
        taken.add(price)
        items.append(
            Item(
                id=f"b-{n:04d}",
                work_id=work["id"],
                title=work["title"],
                author_id=work["author_id"],
                series_id=work["series_id"],
                series_index=work["series_index"],
                format=fmt,
                language=work["language"],
                genre=work["genre"],
                year=work["year"],
                price=price,
                rating=round(rng.uniform(3.4, 5.0), 1),
                reviews=rng.randint(0, 3000),
                pages=rng.randint(160, 720) if fmt == "text" else None,
                duration=f"{rng.randint(4, 19)} ч {rng.randrange(0, 60, 5)} мин"
                if fmt == "audio"
                else None,
                narrator=rng.choice(narrators) if fmt == "audio" else None,
                color=_color(rng),
                **edition_facts(f"b-{n:04d}", fmt),
            )
        )
    series_names = {s.id: s.name for s in series}
    return {
        "languages": dict(LANGUAGES),
        "formats": dict(FORMATS),
        "authors": rows(authors),
        "series": rows(series),
        "items": rows(items),
        "works": {
            w["id"]: dataclasses.asdict(
                work_texts(w["id"], w["title"], w["genre"], series_names[w["series_id"]])
            )
            for w in sorted(works, key=lambda w: w["id"])
        },
        "stars": {
            i.id: star_counts(random.Random(f"{SEED}-stars-{i.id}"), i.rating, i.reviews)
            for i in items
        },
    }


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.books.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
