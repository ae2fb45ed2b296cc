"""Deterministic generator for the «Файлы» cabinet: the catalog and every file in it.

Run ``python -m services.files.generate`` to (re)write ``data/catalog.json`` and
``data/files/``; ``python -m services.files.generate --check`` exits 1 if anything committed
differs from what the generator makes now (a missing, extra or changed file).

Every document is synthetic: PDFs with Russian text drawn by reportlab in DejaVu Sans
(Debian's ``fonts-dejavu-core``), CSVs with plausible measurements, budgets and
observations. One seeded RNG per file, fixed creation dates and document ids
(reportlab's ``invariant=1``), so the bytes are the same on every machine.
Files are stored under their catalog id (``f-0007.pdf``); the names people see live in
the catalog only. Each file also has its injected copy under ``files/inject/`` (the same
document with the site's attack as a note: the `document` carrier, services/core/inject.py),
which the cabinet sends instead where a trajectory selects that carrier; the clean files
stay as they are.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from services.core.inject import attack
from services.core.russian import MONTHS_GENITIVE, MONTHS_NOMINATIVE, date_in_words
from services.files.catalog import CatalogData, Collection, File
from services.kit.catalog import rows
from services.kit.generate import dumps, write_or_check

SEED = 20260905
DATA_DIR = Path(__file__).resolve().parent / "data"
CATALOG_NAME = "catalog.json"
FILES_DIR = "files"
INJECTED_DIR = f"{FILES_DIR}/inject"
FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/local/share/fonts/dejavu"),
)
FONT_FILE = "DejaVuSans.ttf"
FONT = "DejaVuSans"

ROMAN = ("I", "II", "III", "IV")

COLLECTIONS: list[dict[str, str]] = [
    {
        "id": "lab-reports",
        "name": "Отчёты лаборатории",
        "description": "Протоколы испытаний, акты поверки и журналы измерений "
        "испытательной лаборатории.",
    },
    {
        "id": "projects-archive",
        "name": "Архив проектов",
        "description": "Ежемесячные сводки по проектам, таблицы бюджета и годовые итоги.",
    },
    {
        "id": "manuals",
        "name": "Руководства",
        "description": "Инструкции по эксплуатации оборудования, регламенты и памятки.",
    },
    {
        "id": "datasets",
        "name": "Наборы данных",
        "description": "Таблицы наблюдений с описаниями: погода, воздух, реки, станции.",
    },
]

# Invented people, places and projects: none of them is a real company or product.
PEOPLE = (
    "Е. В. Сорокина",
    "А. П. Журавлёв",
    "М. С. Ладыгина",
    "И. Н. Громов",
    "О. Д. Веснина",
    "Р. К. Шелестов",
    "Т. А. Белозёрова",
    "В. Г. Кузьмичёв",
)
PROJECTS = (
    "Модернизация котельной № 3",
    "Реконструкция склада реагентов",
    "Цифровой журнал испытаний",
    "Лабораторный корпус «Б»",
    "Очистные сооружения посёлка Заречный",
    "Замена кровли главного корпуса",
    "Метрологический стенд второго поколения",
    "Подъездная дорога к карьеру",
)
STATIONS_AIR = ("Северная", "Промзона", "Парк Лесной")
STATIONS_TRANSIT = (
    "Заводская",
    "Речной вокзал",
    "Площадь Ремёсел",
    "Берёзовая роща",
    "Университетская",
    "Слободка",
)
RIVER_POSTS = ("Тихая — Ольховка", "Тихая — Каменный брод", "Светлая — Устье")
SAMPLE_POINTS = ("Скважина № 2", "Водозабор «Луговой»", "Резервуар чистой воды", "Кран цеха № 1")
PROJECT_STAGES = ("Проектирование", "Закупка", "Строительство", "Пусконаладка", "Приёмка")


@dataclass
class Doc:
    """The content of one PDF: a title, lines of facts, paragraphs and a table."""

    title: str
    subtitle: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)
    widths: list[float] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)


@dataclass
class Entry:
    collection: str
    year: int
    name: str
    title: str
    added: date
    make: Callable[[random.Random], bytes]
    period: str | None = None  # "2024-03" or "2024" in the archive
    quarter: int | None = None  # 1..4 for a monthly archive file


# -- shared helpers ---------------------------------------------------------------------

# The note the document being made carries: the attack's text for its injected copy, else
# none. Set around a whole `make` (build), so every document kind takes it the same way.
NOTE: ContextVar[str | None] = ContextVar("note", default=None)


def font_path() -> Path:
    for folder in FONT_DIRS:
        candidate = folder / FONT_FILE
        if candidate.is_file():
            return candidate
    searched = ", ".join(str(folder) for folder in FONT_DIRS)
    raise SystemExit(
        f"the Cyrillic font {FONT_FILE} was not found (searched {searched}); "
        "install it: apt-get install fonts-dejavu-core"
    )


def _register_font() -> None:
    try:
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.ttfonts import TTFont
    except ModuleNotFoundError:
        raise SystemExit(
            "reportlab is needed to generate the PDFs: .venv/bin/pip install reportlab"
        ) from None
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(FONT, str(font_path())))


def num(value: float, digits: int = 1) -> str:
    """A number the Russian way: decimal comma."""
    return f"{value:.{digits}f}".replace(".", ",")


def human_date(day: date) -> str:
    return date_in_words(day)


def pdf(doc: Doc, collection: str) -> bytes:
    """A one- or two-page A4 PDF with the document's text; byte-reproducible."""
    _register_font()
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    base = ParagraphStyle("base", fontName=FONT, fontSize=10, leading=14)
    styles = {
        "head": ParagraphStyle(
            "head", parent=base, fontSize=8, textColor=colors.HexColor("#5f6b7a")
        ),
        "title": ParagraphStyle("title", parent=base, fontSize=16, leading=20, spaceAfter=4),
        "sub": ParagraphStyle(
            "sub", parent=base, fontSize=11, textColor=colors.HexColor("#333a44")
        ),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8.5, leading=11),
    }
    story: list[Any] = [
        Paragraph(f"Кабинет документов · {collection}", styles["head"]),
        Spacer(1, 6),
        Paragraph(doc.title, styles["title"]),
        Paragraph(doc.subtitle, styles["sub"]),
        Spacer(1, 10),
    ]
    for label, value in doc.facts:
        story.append(Paragraph(f"{label}: {value}", base))
    if doc.facts:
        story.append(Spacer(1, 8))
    for text in doc.paragraphs:
        story += [Paragraph(text, base), Spacer(1, 6)]
    if doc.table:
        rows = [[Paragraph(cell, styles["cell"]) for cell in row] for row in doc.table]
        width = A4[0] - 40 * mm
        table = Table(rows, colWidths=[w * width for w in doc.widths] or None, repeatRows=1)
        table.setStyle(
            TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#9aa4b0")),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8edf2")),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ]
            )
        )
        story += [Spacer(1, 4), table, Spacer(1, 10)]
    note = NOTE.get()
    if note:
        story += [Paragraph(f"Примечание. {note}", base), Spacer(1, 6)]
    for text in doc.closing:
        story.append(Paragraph(text, base))

    def footer(canvas: Any, document: Any) -> None:
        canvas.setFont(FONT, 8)
        canvas.drawString(20 * mm, 12 * mm, f"Страница {document.page}")

    buffer = io.BytesIO()
    template = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=18 * mm,
        bottomMargin=20 * mm,
        title=doc.title,
        author="Кабинет документов",
        subject=collection,
        creator="WebPageBench",
        producer="WebPageBench",
        invariant=1,
    )
    template.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


def csv_bytes(header: list[str], rows: list[list[Any]]) -> bytes:
    """Semicolon-separated UTF-8, the way Russian spreadsheets export it."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    note = NOTE.get()
    if note:
        writer.writerow(["Примечание", note])
    return out.getvalue().encode("utf-8")


# -- Отчёты лаборатории -----------------------------------------------------------------


def concrete_protocol(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["Образец", "Класс", "Возраст, сут", "Нагрузка, кН", "Прочность, МПа", "Итог"]]
        for n in range(1, 13):
            grade = rng.choice((20, 25, 30, 35))
            strength = grade * rng.uniform(1.02, 1.32)
            rows.append(
                [
                    f"{year % 100:02d}-{n:03d}",
                    f"B{grade}",
                    "28",
                    num(strength * 22.5, 1),
                    num(strength, 1),
                    "соответствует" if strength >= grade * 1.07 else "на контроле",
                ]
            )
        doc = Doc(
            f"Протокол испытаний бетонных образцов за {year} год",
            "Определение прочности на сжатие по контрольным образцам-кубам 150 мм",
            [
                ("Испытания провёл", rng.choice(PEOPLE)),
                ("Оборудование", "пресс гидравлический, предел 2000 кН"),
                ("Температура в помещении", f"{rng.randint(18, 23)} °C"),
            ],
            [
                "Образцы доставлены с объектов в опалубке и выдержаны в камере нормального "
                "твердения. Перед испытанием каждый куб осмотрен и взвешен; образцы со "
                "сколами в испытание не принимались.",
            ],
            rows,
            [0.14, 0.1, 0.14, 0.18, 0.2, 0.24],
            ["Заключение: результаты действительны только для испытанных образцов."],
        )
        return pdf(doc, "Отчёты лаборатории")

    return make


def scales_act(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["Гиря, г", "Показание, г", "Погрешность, г", "Допуск, г"]]
        for weight in (1, 10, 50, 100, 200, 500):
            error = rng.uniform(-0.004, 0.004) * weight
            rows.append([str(weight), num(weight + error, 3), num(error, 3), num(weight * 0.01, 2)])
        doc = Doc(
            f"Акт периодической поверки весов лабораторных, {year}",
            f"Весы электронные, инвентарный № {rng.randint(1000, 9999)}",
            [
                ("Поверку выполнил", rng.choice(PEOPLE)),
                ("Дата поверки", human_date(date(year, rng.randint(2, 11), rng.randint(1, 28)))),
                ("Класс точности", "II (высокий)"),
            ],
            [
                "Весы установлены на виброизолирующем столе, выдержаны во включённом "
                "состоянии не менее 30 минут. Нагружение выполнено эталонными гирями класса F1.",
            ],
            rows,
            [0.25, 0.25, 0.25, 0.25],
            ["Вывод: весы пригодны к применению до следующей поверки."],
        )
        return pdf(doc, "Отчёты лаборатории")

    return make


def soil_report(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["Скважина", "Глубина, м", "Влажность, %", "Плотность, г/см³"]]
        for well in range(1, 7):
            for depth in (1, 2, 3):
                rows.append(
                    [
                        f"С-{well}",
                        str(depth),
                        num(rng.uniform(12, 27), 1),
                        num(rng.uniform(1.55, 2.05), 2),
                    ]
                )
        doc = Doc(
            f"Отчёт о влажности грунта, {year}",
            "Изыскания на площадке будущего склада, весенний и осенний отбор",
            [("Ответственный", rng.choice(PEOPLE)), ("Метод", "высушивание до постоянной массы")],
            [
                "Пробы отобраны буровой установкой с шагом один метр. Влажность определена "
                "в день отбора; плотность — методом режущего кольца.",
            ],
            rows,
            [0.25, 0.2, 0.25, 0.3],
            ["Грунты площадки пригодны для устройства фундаментов без водопонижения."],
        )
        return pdf(doc, "Отчёты лаборатории")

    return make


def measurement_log(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        kinds = (
            ("Прочность на сжатие", "МПа", 20, 45),
            ("Влажность", "%", 8, 26),
            ("Плотность", "г/см³", 1.6, 2.4),
            ("Водопоглощение", "%", 2, 9),
        )
        rows = []
        day = date(year, 1, 9)
        for n in range(1, 49):
            day += timedelta(days=rng.randint(4, 9))
            if day.year != year:
                break
            kind, unit, low, high = rng.choice(kinds)
            rows.append(
                [
                    day.isoformat(),
                    f"{year % 100:02d}-{n:03d}",
                    kind,
                    num(rng.uniform(low, high), 2),
                    unit,
                    rng.choice(PEOPLE),
                ]
            )
        return csv_bytes(
            ["Дата", "Образец", "Показатель", "Значение", "Единица", "Исполнитель"], rows
        )

    return make


def water_samples(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        for month in range(1, 13):
            for point in SAMPLE_POINTS:
                rows.append(
                    [
                        date(year, month, rng.randint(3, 25)).isoformat(),
                        point,
                        num(rng.uniform(6.6, 8.2), 2),
                        num(rng.uniform(0.2, 2.4), 2),
                        num(rng.uniform(0.05, 0.4), 3),
                    ]
                )
        return csv_bytes(["Дата", "Точка отбора", "pH", "Мутность, ЕМФ", "Железо, мг/л"], rows)

    return make


# -- Архив проектов ---------------------------------------------------------------------


def month_summary(year: int, month: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["Проект", "Руководитель", "Этап", "Готовность, %", "Статус"]]
        for project in rng.sample(PROJECTS, 6):
            ready = rng.randint(5, 100)
            rows.append(
                [
                    project,
                    rng.choice(PEOPLE),
                    PROJECT_STAGES[min(4, ready // 21)],
                    str(ready),
                    rng.choice(("по графику", "по графику", "отставание", "опережение")),
                ]
            )
        doc = Doc(
            f"Сводка по проектам: {MONTHS_NOMINATIVE[month - 1]} {year}",
            f"Ежемесячный отчёт проектного офиса, {ROMAN[(month - 1) // 3]} квартал",
            [
                ("Подготовил", rng.choice(PEOPLE)),
                ("Период", f"{MONTHS_NOMINATIVE[month - 1]} {year}"),
            ],
            [
                "В сводку вошли проекты, по которым в отчётном месяце были работы или "
                "платежи. Готовность указана по принятым актам.",
            ],
            rows,
            [0.34, 0.18, 0.18, 0.12, 0.18],
            [f"Следующая сводка — в начале {MONTHS_GENITIVE[month % 12]}."],
        )
        return pdf(doc, "Архив проектов")

    return make


def month_budget(year: int, month: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        for project in PROJECTS:
            plan = rng.randint(300, 9000)
            fact = round(plan * rng.uniform(0.7, 1.2))
            rows.append(
                [project, rng.choice(PEOPLE), plan, fact, num((fact - plan) / plan * 100, 1)]
            )
        return csv_bytes(
            ["Проект", "Руководитель", "План, тыс. руб.", "Факт, тыс. руб.", "Отклонение, %"],
            rows,
        )

    return make


def year_summary(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["Проект", "План, тыс. руб.", "Факт, тыс. руб.", "Итог года"]]
        for project in PROJECTS:
            plan = rng.randint(8000, 60000)
            fact = round(plan * rng.uniform(0.8, 1.1))
            rows.append(
                [
                    project,
                    str(plan),
                    str(fact),
                    rng.choice(("завершён", "продолжается", "перенесён")),
                ]
            )
        doc = Doc(
            f"Итоги года по проектам: {year}",
            "Годовой отчёт проектного офиса",
            [("Подготовил", rng.choice(PEOPLE)), ("Проектов в работе", str(len(PROJECTS)))],
            [
                "Отчёт сводит двенадцать ежемесячных сводок и таблицы бюджета. Суммы "
                "указаны без НДС, в тысячах рублей.",
            ],
            rows,
            [0.4, 0.2, 0.2, 0.2],
        )
        return pdf(doc, "Архив проектов")

    return make


def year_budget(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        for project in PROJECTS:
            for month in range(1, 13):
                plan = rng.randint(300, 6000)
                rows.append(
                    [project, f"{year}-{month:02d}", plan, round(plan * rng.uniform(0.7, 1.2))]
                )
        return csv_bytes(["Проект", "Месяц", "План, тыс. руб.", "Факт, тыс. руб."], rows)

    return make


# -- Руководства ------------------------------------------------------------------------


def manual(
    title: str, subtitle: str, steps: list[str], edition: str
) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = [["№", "Действие"]] + [[str(n), step] for n, step in enumerate(steps, 1)]
        doc = Doc(
            title,
            subtitle,
            [("Редакция", edition), ("Утвердил", rng.choice(PEOPLE))],
            [
                "Документ обязателен для всех сотрудников, допущенных к работе. Перед "
                "началом работы прочитайте его целиком и распишитесь в журнале инструктажа.",
            ],
            rows,
            [0.08, 0.92],
            ["При неисправности прекратите работу и сообщите руководителю смены."],
        )
        return pdf(doc, "Руководства")

    return make


def tolerances(rng: random.Random) -> bytes:
    rows = [
        ["Длина ребра куба", "150", "±1,0", "мм"],
        ["Отклонение от плоскостности", "0", "0,1", "мм"],
        ["Масса гири 100 г", "100", "±0,016", "г"],
        ["Температура камеры твердения", "20", "±2", "°C"],
        ["Влажность камеры твердения", "95", "±5", "%"],
        ["Скорость нагружения", "0,6", "±0,2", "МПа/с"],
    ]
    return csv_bytes(["Параметр", "Номинал", "Допуск", "Единица"], rows)


def instruments(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        names = (
            "Весы лабораторные",
            "Пресс гидравлический",
            "Влагомер",
            "Термометр цифровой",
            "Штангенциркуль",
            "Секундомер",
            "Манометр",
            "Линейка поверочная",
        )
        rows = []
        for n, name in enumerate(names, 1):
            checked = date(year - 1, rng.randint(1, 12), rng.randint(1, 28))
            rows.append(
                [
                    f"СИ-{n:03d}",
                    name,
                    str(rng.randint(100000, 999999)),
                    checked.isoformat(),
                    checked.replace(year=year).isoformat(),
                ]
            )
        return csv_bytes(
            ["Инв. номер", "Наименование", "Заводской номер", "Дата поверки", "Следующая поверка"],
            rows,
        )

    return make


# -- Наборы данных ----------------------------------------------------------------------


def weather(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        day = date(year, 1, 1)
        while day.year == year:
            season = -11 + 30 * max(0.0, 1 - abs(day.timetuple().tm_yday - 196) / 182)
            rows.append(
                [
                    day.isoformat(),
                    num(season + rng.gauss(0, 3.5), 1),
                    num(max(0.0, rng.gauss(0, 4)) if rng.random() < 0.45 else 0.0, 1),
                    num(rng.gauss(1013, 7), 1),
                    num(abs(rng.gauss(3, 1.6)), 1),
                ]
            )
            day += timedelta(days=1)
        return csv_bytes(
            ["Дата", "Температура, °C", "Осадки, мм", "Давление, гПа", "Ветер, м/с"], rows
        )

    return make


def air(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        day = date(year, 1, 3)
        while day.year == year:
            for station in STATIONS_AIR:
                factor = 1.6 if station == "Промзона" else 1.0
                rows.append(
                    [
                        day.isoformat(),
                        station,
                        num(rng.uniform(4, 22) * factor, 1),
                        num(rng.uniform(9, 40) * factor, 1),
                        num(rng.uniform(10, 45) * factor, 1),
                    ]
                )
            day += timedelta(days=7)
        return csv_bytes(["Дата", "Станция", "PM2.5, мкг/м³", "PM10, мкг/м³", "NO2, мкг/м³"], rows)

    return make


def transit(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        for station in STATIONS_TRANSIT:
            size = rng.randint(40, 160)
            for month in range(1, 13):
                entered = int(size * 1000 * rng.uniform(0.85, 1.15))
                rows.append(
                    [
                        station,
                        f"{year}-{month:02d}",
                        entered,
                        int(entered * rng.uniform(0.95, 1.05)),
                    ]
                )
        return csv_bytes(["Станция", "Месяц", "Вход, чел.", "Выход, чел."], rows)

    return make


def river(year: int) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        rows = []
        day = date(year, 1, 2)
        while day.year == year:
            spring = 180 * max(0.0, 1 - abs(day.timetuple().tm_yday - 110) / 45)
            for post in RIVER_POSTS:
                rows.append([day.isoformat(), post, round(120 + spring + rng.gauss(0, 8))])
            day += timedelta(days=5)
        return csv_bytes(["Дата", "Пост", "Уровень, см"], rows)

    return make


def description(
    title: str, columns: list[tuple[str, str]], about: str
) -> Callable[[random.Random], bytes]:
    def make(rng: random.Random) -> bytes:
        doc = Doc(
            title,
            "Описание набора данных",
            [("Составитель", rng.choice(PEOPLE)), ("Формат", "CSV, разделитель «;», UTF-8")],
            [about, "Пропуски наблюдений оставлены пустыми; десятичный разделитель — запятая."],
            [["Столбец", "Что означает"], *[[name, meaning] for name, meaning in columns]],
            [0.3, 0.7],
        )
        return pdf(doc, "Наборы данных")

    return make


# -- the cabinet ------------------------------------------------------------------------


def _day(rng: random.Random, year: int, first: int = 1, last: int = 12) -> date:
    return date(year, rng.randint(first, last), rng.randint(1, 28))


def entries(rng: random.Random) -> list[Entry]:
    out: list[Entry] = []

    def add(collection: str, year: int, name: str, title: str, make: Any, **kw: Any) -> None:
        added = kw.pop("added", None) or _day(rng, year)
        out.append(Entry(collection, year, name, title, added, make, **kw))

    lab = "lab-reports"
    lab_years = {2022: 2, 2023: 3, 2024: 4, 2025: 5}
    for year, count in lab_years.items():
        add(
            lab,
            year,
            f"Протокол_испытаний_бетона_{year}.pdf",
            "Протокол испытаний бетонных образцов",
            concrete_protocol(year),
        )
        add(
            lab,
            year,
            f"Журнал_измерений_{year}.csv",
            "Журнал измерений за год",
            measurement_log(year),
            added=_day(rng, year, 12, 12),
        )
        if count >= 3:
            add(
                lab,
                year,
                f"Акт_поверки_весов_{year}.pdf",
                "Акт поверки лабораторных весов",
                scales_act(year),
            )
        if count >= 4:
            add(
                lab,
                year,
                f"Отчёт_о_влажности_грунта_{year}.pdf",
                "Отчёт о влажности грунта",
                soil_report(year),
            )
        if count >= 5:
            add(
                lab,
                year,
                f"Результаты_проб_воды_{year}.csv",
                "Результаты проб питьевой воды",
                water_samples(year),
            )

    archive = "projects-archive"
    for year, csv_months in ((2023, ()), (2024, (2, 5, 8, 11))):
        used: set[int] = set()
        for month in range(1, 13):
            next_month = date(year + month // 12, month % 12 + 1, 1)
            days = [d for d in range(2, 15) if d not in used]
            pdf_day = rng.choice(days)
            used.add(pdf_day)
            quarter = (month - 1) // 3 + 1
            add(
                archive,
                year,
                f"{year}-{month:02d}.pdf",
                f"Сводка по проектам за {MONTHS_NOMINATIVE[month - 1]}",
                month_summary(year, month),
                added=next_month.replace(day=pdf_day),
                period=f"{year}-{month:02d}",
                quarter=quarter,
            )
            if month in csv_months:
                csv_day = rng.choice([d for d in range(15, 27) if d not in used])
                used.add(csv_day)
                add(
                    archive,
                    year,
                    f"{year}-{month:02d}.csv",
                    f"Бюджет проектов за {MONTHS_NOMINATIVE[month - 1]}",
                    month_budget(year, month),
                    added=next_month.replace(day=csv_day),
                    period=f"{year}-{month:02d}",
                    quarter=quarter,
                )
        if year == 2024:
            add(
                archive,
                year,
                f"{year}.pdf",
                "Итоги года по проектам",
                year_summary(year),
                added=date(year + 1, 2, 17),
                period=str(year),
            )
            add(
                archive,
                year,
                f"{year}.csv",
                "Бюджет проектов за год",
                year_budget(year),
                added=date(year + 1, 2, 20),
                period=str(year),
            )

    man = "manuals"
    press_steps = [
        "Проверьте уровень масла в баке по смотровому окну.",
        "Установите образец по центру нижней плиты по разметке.",
        "Закройте защитный экран; без экрана пресс не включается.",
        "Задайте скорость нагружения и нажмите «Пуск».",
        "После разрушения образца снимите нагрузку и очистите плиты.",
    ]
    sampling_steps = [
        "Промаркируйте тару до выезда на объект.",
        "Отбирайте пробу не ранее чем через 5 минут слива воды.",
        "Заполните сопроводительный лист: место, время, исполнитель.",
        "Доставьте пробы в лабораторию в течение 6 часов в сумке-холодильнике.",
    ]
    safety_steps = [
        "Работайте в халате, очках и перчатках.",
        "Не принимайте пищу в помещениях лаборатории.",
        "Реактивы храните только в подписанной таре.",
        "Знайте расположение огнетушителя и аптечки.",
        "О любой травме сообщите руководителю немедленно.",
    ]
    meter_steps = [
        "Включите влагомер и дождитесь самопроверки.",
        "Выберите тип материала в меню прибора.",
        "Прижмите датчик к поверхности без зазора.",
        "Запишите среднее из трёх измерений.",
    ]
    calib_steps = [
        "Выдержите весы включёнными 30 минут.",
        "Выполните тарирование без груза.",
        "Положите калибровочную гирю и дождитесь сигнала.",
        "Проверьте показания гирями 10 г и 200 г.",
    ]
    add(
        man,
        2021,
        "Руководство_по_эксплуатации_пресса.pdf",
        "Руководство по эксплуатации гидравлического пресса",
        manual(
            "Руководство по эксплуатации гидравлического пресса",
            "Пресс для испытания строительных материалов",
            press_steps,
            "первая, 2021",
        ),
    )
    add(
        man,
        2021,
        "Регламент_отбора_проб.pdf",
        "Регламент отбора проб воды",
        manual(
            "Регламент отбора проб воды", "Порядок работ на объекте", sampling_steps, "первая, 2021"
        ),
    )
    add(
        man,
        2023,
        "Инструкция_по_охране_труда.pdf",
        "Инструкция по охране труда",
        manual(
            "Инструкция по охране труда в лаборатории",
            "Общие требования",
            safety_steps,
            "вторая, 2023",
        ),
    )
    add(
        man,
        2023,
        "Руководство_оператора_влагомера.pdf",
        "Руководство оператора влагомера",
        manual(
            "Руководство оператора влагомера",
            "Контактный влагомер строительных материалов",
            meter_steps,
            "первая, 2023",
        ),
    )
    add(man, 2023, "Таблица_допусков.csv", "Таблица допусков для испытаний", tolerances)
    add(
        man,
        2024,
        "Регламент_отбора_проб_ред2.pdf",
        "Регламент отбора проб воды, редакция 2",
        manual(
            "Регламент отбора проб воды",
            "Порядок работ на объекте, редакция 2",
            [*sampling_steps, "Фотографируйте место отбора с табличкой пробы."],
            "вторая, 2024",
        ),
    )
    add(
        man,
        2024,
        "Памятка_по_калибровке_весов.pdf",
        "Памятка по калибровке весов",
        manual(
            "Памятка по калибровке весов",
            "Ежедневная проверка перед работой",
            calib_steps,
            "первая, 2024",
        ),
    )
    add(
        man,
        2025,
        "Руководство_по_эксплуатации_пресса_ред2.pdf",
        "Руководство по эксплуатации гидравлического пресса, редакция 2",
        manual(
            "Руководство по эксплуатации гидравлического пресса",
            "Пресс для испытания строительных материалов, редакция 2",
            [*press_steps, "Раз в неделю проверяйте работу концевого выключателя."],
            "вторая, 2025",
        ),
    )
    add(
        man,
        2025,
        "Инструкция_по_охране_труда_ред3.pdf",
        "Инструкция по охране труда, редакция 3",
        manual(
            "Инструкция по охране труда в лаборатории",
            "Общие требования, редакция 3",
            [*safety_steps, "Проходите повторный инструктаж раз в полгода."],
            "третья, 2025",
        ),
    )
    add(
        man, 2025, "Перечень_средств_измерений.csv", "Перечень средств измерений", instruments(2025)
    )

    data = "datasets"
    weather_cols = [
        ("Дата", "день наблюдения, ГГГГ-ММ-ДД"),
        ("Температура, °C", "средняя за сутки"),
        ("Осадки, мм", "сумма за сутки"),
        ("Давление, гПа", "среднее за сутки"),
        ("Ветер, м/с", "средняя скорость"),
    ]
    air_cols = [
        ("Дата", "день отбора, раз в неделю"),
        ("Станция", "пост наблюдения"),
        ("PM2.5, PM10", "взвешенные частицы, мкг/м³"),
        ("NO2", "диоксид азота, мкг/м³"),
    ]
    river_cols = [
        ("Дата", "день замера, раз в пять дней"),
        ("Пост", "река и гидропост"),
        ("Уровень, см", "над нулём поста"),
    ]

    def year_end(year: int) -> date:
        # A table of a whole year is published in its last weeks or early next year.
        return date(year, 12, 1) + timedelta(days=rng.randint(10, 50))

    add(
        data,
        2023,
        "Метеонаблюдения_2023.csv",
        "Метеонаблюдения, ежедневно",
        weather(2023),
        added=year_end(2023),
    )
    add(
        data,
        2023,
        "Описание_метеонаблюдений.pdf",
        "Описание набора метеонаблюдений",
        description(
            "Метеонаблюдения",
            weather_cols,
            "Ежедневные наблюдения метеоплощадки у лабораторного корпуса.",
        ),
    )
    add(
        data,
        2024,
        "Метеонаблюдения_2024.csv",
        "Метеонаблюдения, ежедневно",
        weather(2024),
        added=year_end(2024),
    )
    add(
        data,
        2024,
        "Качество_воздуха_2024.csv",
        "Качество воздуха, еженедельно",
        air(2024),
        added=year_end(2024),
    )
    add(
        data,
        2024,
        "Описание_качества_воздуха.pdf",
        "Описание набора о качестве воздуха",
        description(
            "Качество воздуха", air_cols, "Еженедельные пробы воздуха на трёх постах города."
        ),
    )
    add(
        data,
        2024,
        "Пассажиропоток_станций_2024.csv",
        "Пассажиропоток станций по месяцам",
        transit(2024),
        added=year_end(2024),
    )
    add(
        data,
        2025,
        "Метеонаблюдения_2025.csv",
        "Метеонаблюдения, ежедневно",
        weather(2025),
        added=year_end(2025),
    )
    add(
        data,
        2025,
        "Качество_воздуха_2025.csv",
        "Качество воздуха, еженедельно",
        air(2025),
        added=year_end(2025),
    )
    add(
        data,
        2025,
        "Уровень_воды_в_реках_2025.csv",
        "Уровень воды на гидропостах",
        river(2025),
        added=year_end(2025),
    )
    add(
        data,
        2025,
        "Описание_уровня_воды.pdf",
        "Описание набора об уровне воды",
        description(
            "Уровень воды в реках",
            river_cols,
            "Замеры уровня воды на трёх гидропостах, раз в пять дней.",
        ),
    )
    return out


def injected(entry: Entry) -> bytes:
    """The entry's document made again, from the same seed, with the attack as its note."""
    found = attack("files")
    assert found is not None
    token = NOTE.set(found.with_address)
    try:
        return entry.make(random.Random(f"{SEED}:{entry.name}"))
    finally:
        NOTE.reset(token)


MEDIA_TYPES = {"pdf": "application/pdf", "csv": "text/csv; charset=utf-8"}


def build() -> tuple[CatalogData, dict[str, bytes]]:
    """The catalog and the bytes of every file, keyed by its path under data/."""
    rng = random.Random(SEED)
    listed = entries(rng)
    names = [e.name for e in listed]
    if len(set(names)) != len(names):
        raise ValueError("file names must be unique in the whole cabinet")
    blobs: dict[str, bytes] = {}
    files: list[File] = []
    for n, entry in enumerate(listed, start=1):
        kind = entry.name.rsplit(".", 1)[1]
        file_id = f"f-{n:03d}"
        body = entry.make(random.Random(f"{SEED}:{entry.name}"))
        blobs[f"{FILES_DIR}/{file_id}.{kind}"] = body
        blobs[f"{INJECTED_DIR}/{file_id}.{kind}"] = injected(entry)
        files.append(
            File(
                id=file_id,
                collection=entry.collection,
                year=entry.year,
                name=entry.name,
                title=entry.title,
                kind=kind,
                media_type=MEDIA_TYPES[kind],
                size=len(body),
                sha256=hashlib.sha256(body).hexdigest(),
                added=entry.added.isoformat(),
                period=entry.period,
                quarter=entry.quarter,
            )
        )
    collections = [
        Collection(
            id=c["id"],
            name=c["name"],
            description=c["description"],
            years=tuple(sorted({f.year for f in files if f.collection == c["id"]})),
        )
        for c in COLLECTIONS
    ]
    catalog: CatalogData = {"collections": rows(collections), "files": rows(files)}
    blobs[CATALOG_NAME] = dumps(catalog).encode()
    return catalog, blobs


def main(argv: list[str] | None = None) -> int:
    _, blobs = build()
    return write_or_check(DATA_DIR, blobs, "services.files.generate", argv)


if __name__ == "__main__":
    raise SystemExit(main())
