"""Deterministic generator for the «Маркет» (shop) catalog.

Run ``python -m services.market.generate`` to (re)write ``data/catalog.json``;
``python -m services.market.generate --check`` exits 1 if the committed file is stale.

Everything is synthetic: the makers are invented, prices are fixed in the table below
(so tasks about prices have one answer), ratings, reviews and stock come from one seeded
RNG. Look-alikes are deliberate: one maker's two variants (TW-20 and TW-20 Pro, two power
banks) and one product in two pack sizes (cat food, dish soap, coffee).
"""

from __future__ import annotations

import colorsys
import random
from pathlib import Path
from typing import Any

from services.kit.catalog import (
    ReviewPhrases,
    rows,
    star_counts,
    write_questions,
    write_reviews,
)
from services.kit.generate import dumps, write_or_check
from services.market.catalog import CatalogData, Category, Details, Product, Seller

SEED = 20260902
CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"

CATEGORIES: list[Category] = [
    Category("electronics", "Электроника", "🎧"),
    Category("pets", "Зоотовары", "🐾"),
    Category("sport", "Спорт и отдых", "⚽"),
    Category("household", "Бытовая химия", "🧴"),
    Category("food", "Продукты", "☕"),
]

# Invented makers; none is a real company or trademark.
BRANDS: dict[str, list[str]] = {
    "electronics": ["Тиховей", "Ярогор", "Лунный сверчок", "Ветрогон", "Кварцевый лис"],
    "pets": ["Пёстрый хвост", "Бодрый лось", "Кото-Граф"],
    "sport": ["Стремнина", "Ветроход"],
    "household": ["Пенный бор", "Чистый лог", "Зеркальный пруд"],
    "food": ["Сытая полка", "Сосновый скит", "Ржаной угол"],
}

# (category, kind, brand, model/variant, price, emoji, specs, showcase, deal_old_price)
# The title is "<kind> «<brand>» <model>" (a comma before a model that is a size).
Row = tuple[str, str, str, str, int, str, dict[str, str], bool, int]
PRODUCTS: list[Row] = [
    # electronics
    ("electronics", "Наушники беспроводные", "Тиховей", "TW-20", 2490, "🎧",
     {"Подключение": "Bluetooth 5.3", "Работа без подзарядки": "6 ч", "Шумоподавление": "нет"},
     True, 0),
    ("electronics", "Наушники беспроводные", "Тиховей", "TW-20 Pro", 4990, "🎧",
     {"Подключение": "Bluetooth 5.3", "Работа без подзарядки": "9 ч", "Шумоподавление": "активное"},
     False, 5990),
    ("electronics", "Наушники проводные", "Ярогор", "Бас-3", 890, "🎧",
     {"Разъём": "3,5 мм", "Длина кабеля": "1,2 м", "Микрофон": "есть"}, False, 0),
    ("electronics", "Колонка портативная", "Ярогор", "Волна", 3290, "🔊",
     {"Мощность": "12 Вт", "Защита от воды": "IPX6", "Работа без подзарядки": "14 ч"}, True, 0),
    ("electronics", "Умные часы", "Лунный сверчок", "Пульс 2", 7990, "⌚",
     {"Экран": "1,4″ AMOLED", "Пульсометр": "есть", "Работа без подзарядки": "7 дней"},
     True, 9490),
    ("electronics", "Фитнес-браслет", "Лунный сверчок", "Шаг", 2190, "⌚",
     {"Экран": "0,9″", "Пульсометр": "есть", "Работа без подзарядки": "14 дней"}, False, 0),
    ("electronics", "Внешний аккумулятор", "Ветрогон", "10 000 мА·ч", 1490, "🔋",
     {"Ёмкость": "10 000 мА·ч", "Выходы": "2 × USB", "Вес": "210 г"}, False, 0),
    ("electronics", "Внешний аккумулятор", "Ветрогон", "20 000 мА·ч", 2390, "🔋",
     {"Ёмкость": "20 000 мА·ч", "Выходы": "3 × USB", "Вес": "390 г"}, True, 0),
    ("electronics", "Электрочайник", "Тиховей", "Кипарис 1,7 л", 2790, "🫖",
     {"Объём": "1,7 л", "Мощность": "2200 Вт", "Корпус": "стекло"}, False, 0),
    ("electronics", "Клавиатура беспроводная", "Кварцевый лис", "К-7", 1990, "⌨",
     {"Раскладка": "русская и латинская", "Подключение": "радио 2,4 ГГц", "Питание": "2 × AAA"},
     False, 0),
    # pets
    ("pets", "Корм сухой для кошек", "Пёстрый хвост", "с индейкой, 400 г", 349, "🐈",
     {"Вес": "400 г", "Возраст": "от 1 года", "Основной вкус": "индейка"}, True, 0),
    ("pets", "Корм сухой для кошек", "Пёстрый хвост", "с индейкой, 2 кг", 1390, "🐈",
     {"Вес": "2 кг", "Возраст": "от 1 года", "Основной вкус": "индейка"}, False, 1590),
    ("pets", "Корм сухой для собак", "Бодрый лось", "с говядиной, 3 кг", 1790, "🐕",
     {"Вес": "3 кг", "Размер собаки": "средний", "Основной вкус": "говядина"}, False, 0),
    ("pets", "Наполнитель комкующийся", "Кото-Граф", "5 л", 459, "🪣",
     {"Объём": "5 л", "Материал": "бентонит", "Аромат": "без запаха"}, False, 0),
    ("pets", "Когтеточка-столбик", "Кото-Граф", "60 см", 990, "🐈",
     {"Высота": "60 см", "Материал": "джут", "Основание": "40 × 40 см"}, True, 0),
    ("pets", "Лежанка для собак", "Бодрый лось", "размер M", 2490, "🐕",
     {"Размер": "70 × 55 см", "Чехол": "съёмный", "Стирка": "при 30 °C"}, False, 0),
    ("pets", "Игрушка-мышь для кошек", "Пёстрый хвост", "3 шт", 199, "🐭",
     {"В наборе": "3 шт", "Материал": "фетр", "Наполнитель": "кошачья мята"}, False, 0),
    ("pets", "Поводок-рулетка", "Бодрый лось", "5 м", 890, "🦮",
     {"Длина": "5 м", "Вес собаки": "до 25 кг", "Тип": "лента"}, False, 0),
    # sport
    ("sport", "Коврик для йоги", "Стремнина", "6 мм", 1290, "🧘",
     {"Толщина": "6 мм", "Размер": "183 × 61 см", "Материал": "ТПЭ"}, True, 0),
    ("sport", "Гантели виниловые", "Стремнина", "2 × 3 кг", 1590, "🏋",
     {"Вес": "2 × 3 кг", "Покрытие": "винил", "Форма": "шестигранная"}, False, 0),
    ("sport", "Скакалка скоростная", "Ветроход", "3 м", 490, "🪢",
     {"Длина": "3 м", "Трос": "стальной в оплётке", "Ручки": "алюминий"}, False, 0),
    ("sport", "Мяч футбольный", "Ветроход", "размер 5", 1890, "⚽",
     {"Размер": "5", "Покрышка": "полиуретан", "Сшивка": "термосклейка"}, True, 2290),
    ("sport", "Бутылка для воды", "Стремнина", "750 мл", 590, "🥤",
     {"Объём": "750 мл", "Материал": "тритан", "Крышка": "с поилкой"}, False, 0),
    ("sport", "Эспандер ленточный", "Ветроход", "набор из 5", 790, "🎗",
     {"В наборе": "5 лент", "Нагрузка": "от 2 до 20 кг", "Чехол": "есть"}, False, 0),
    ("sport", "Шлем велосипедный", "Ветроход", "СК-1", 2990, "⛑",
     {"Размер": "54–58 см", "Вес": "260 г", "Вентиляция": "18 отверстий"}, False, 0),
    ("sport", "Ролик для пресса", "Стремнина", "двойной", 690, "🛞",
     {"Колёса": "2", "Нагрузка": "до 120 кг", "Коврик под колени": "есть"}, False, 0),
    # household
    ("household", "Средство для мытья посуды", "Пенный бор", "лимон, 500 мл", 159, "🍋",
     {"Объём": "500 мл", "Аромат": "лимон", "Подходит для детской посуды": "да"}, True, 0),
    ("household", "Средство для мытья посуды", "Пенный бор", "лимон, 1 л", 269, "🍋",
     {"Объём": "1 л", "Аромат": "лимон", "Подходит для детской посуды": "да"}, False, 0),
    ("household", "Гель для стирки", "Чистый лог", "универсальный, 1,5 л", 549, "🧺",
     {"Объём": "1,5 л", "Стирок": "30", "Тип ткани": "любые"}, False, 649),
    ("household", "Стиральный порошок", "Чистый лог", "для цветного, 3 кг", 689, "🧺",
     {"Вес": "3 кг", "Стирок": "30", "Тип ткани": "цветные"}, False, 0),
    ("household", "Средство для стёкол", "Зеркальный пруд", "с нашатырём, 500 мл", 189, "🪟",
     {"Объём": "500 мл", "Распылитель": "есть", "Без разводов": "да"}, False, 0),
    ("household", "Таблетки для посудомоечной машины", "Пенный бор", "40 шт", 899, "🍽",
     {"В упаковке": "40 шт", "Растворимая плёнка": "да", "Соль и ополаскиватель": "в составе"},
     True, 0),
    ("household", "Чистящий гель для ванной", "Зеркальный пруд", "750 мл", 229, "🛁",
     {"Объём": "750 мл", "Против известкового налёта": "да", "Аромат": "морской"}, False, 0),
    ("household", "Кондиционер для белья", "Чистый лог", "лаванда, 1 л", 319, "🪻",
     {"Объём": "1 л", "Стирок": "40", "Аромат": "лаванда"}, False, 0),
    # food
    ("food", "Кофе в зёрнах", "Сытая полка", "арабика, 250 г", 489, "☕",
     {"Вес": "250 г", "Обжарка": "средняя", "Сорт": "арабика 100 %"}, True, 0),
    ("food", "Кофе в зёрнах", "Сытая полка", "арабика, 1 кг", 1590, "☕",
     {"Вес": "1 кг", "Обжарка": "средняя", "Сорт": "арабика 100 %"}, False, 1790),
    ("food", "Чай чёрный листовой", "Сосновый скит", "100 г", 219, "🍵",
     {"Вес": "100 г", "Лист": "крупный", "Добавки": "нет"}, False, 0),
    ("food", "Гранола с орехами", "Ржаной угол", "350 г", 299, "🥣",
     {"Вес": "350 г", "Сахар": "без добавленного", "Орехи": "фундук, миндаль"}, False, 0),
    ("food", "Макароны спагетти", "Ржаной угол", "450 г", 119, "🍝",
     {"Вес": "450 г", "Мука": "твёрдые сорта пшеницы", "Варка": "9 мин"}, False, 0),
    ("food", "Шоколад горький", "Сытая полка", "75 %, 90 г", 139, "🍫",
     {"Вес": "90 г", "Какао": "75 %", "Добавки": "нет"}, False, 0),
    ("food", "Мёд цветочный", "Сосновый скит", "500 г", 449, "🍯",
     {"Вес": "500 г", "Сбор": "летний", "Упаковка": "стеклянная банка"}, True, 0),
    ("food", "Паста арахисовая", "Ржаной угол", "300 г", 259, "🥜",
     {"Вес": "300 г", "Текстура": "кремовая", "Сахар": "без добавленного"}, False, 0),
]  # fmt: skip

DESCRIPTIONS: dict[str, str] = {
    "electronics": "Гарантия 1 год. Доставим завтра или заберёте сами в пункте выдачи.",
    "pets": "Подходит для ежедневного ухода. Хранить в сухом месте.",
    "sport": "Для занятий дома, в зале и на улице.",
    "household": "Хранить в недоступном для детей месте. Беречь от огня.",
    "food": "Срок годности указан на упаковке. Хранить в сухом прохладном месте.",
}


# The sellers (none named like a maker: a facet's checkbox must not take a maker's name);
# an official partner's goods carry the «Оригинал» badge.
SELLERS: list[Seller] = [
    Seller("s-1", "ТехноДвор", 4.9, 18240, 2016, True),
    Seller("s-2", "Северный склад", 4.7, 9310, 2018, True),
    Seller("s-3", "Лавка на Садовой", 4.5, 2170, 2021, False),
    Seller("s-4", "Дом и порядок", 4.8, 12650, 2017, True),
    Seller("s-5", "Спортбаза", 4.6, 5480, 2019, False),
    Seller("s-6", "Зоомир у парка", 4.4, 1390, 2022, False),
]
# category -> the sellers that trade in it
TRADERS: dict[str, tuple[str, ...]] = {
    "electronics": ("s-1", "s-2", "s-3"),
    "pets": ("s-6", "s-2", "s-3"),
    "sport": ("s-5", "s-2", "s-3"),
    "household": ("s-4", "s-2", "s-3"),
    "food": ("s-2", "s-3", "s-4"),
}
PHRASES = ReviewPhrases(
    texts={
        5: (
            "Пользуюсь уже месяц, всё как в описании. Упаковано надёжно, пришло быстро.",
            "Брали в подарок, остались очень довольны. Качество лучше, чем ожидали за эти деньги.",
            "Второй раз заказываю, всё стабильно хорошо. Рекомендую.",
            "Отличная вещь, претензий нет. Продавец ответил на все вопросы до покупки.",
            "Соответствует характеристикам, выглядит аккуратно, нареканий нет.",
            "Цена и качество на уровне, доставка точно в срок. Спасибо!",
        ),
        3: (
            "В целом нормально, но ожидал немного большего. За свою цену сойдёт.",
            "Есть мелкие недочёты, но пользоваться можно. Упаковка была помята.",
            "Средне: что-то понравилось, что-то нет. Посмотрим, как покажет себя дальше.",
        ),
        1: (
            "Не подошло, оформил возврат — вернули деньги за несколько дней.",
            "Пришло не совсем то, что на фото. Качество разочаровало.",
            "Через неделю появились проблемы, пришлось обращаться в поддержку.",
        ),
    },
    pros=(
        "Качество",
        "Цена",
        "Быстрая доставка",
        "Удобно пользоваться",
        "Аккуратная упаковка",
        "Внешний вид",
    ),
    cons=("Нет", "Цена могла быть ниже", "Запах пластика", "Короткая инструкция", "Упаковка"),
    questions=(
        (
            "Есть ли гарантия и как ею воспользоваться?",
            "Да, гарантия производителя. Обратитесь в поддержку из раздела «Мои заказы».",
        ),
        (
            "Можно ли вернуть, если не подойдёт?",
            "Да, в течение 14 дней, если сохранены вид и упаковка.",
        ),
        ("Какая страна производства?", "Россия, сведения есть на упаковке."),
        (
            "Когда снова будет большая упаковка?",
            "Поставка ожидается в течение двух недель, следите за карточкой.",
        ),
        (
            "Соответствует ли цвет фотографии?",
            "Оттенок может немного отличаться из-за настроек экрана.",
        ),
        ("Входит ли в комплект инструкция?", "Да, инструкция на русском языке в коробке."),
    ),
    answered_by="Продавец",
)


def _details(product: Product) -> Details:
    """A product's reviews by stars, its reviews and questions (an RNG of its own, so the
    catalog's other facts keep their draws)."""
    rng = random.Random(f"{SEED}-{product.id}")
    return {
        "stars": star_counts(rng, product.rating, product.reviews),
        "reviews": rows(write_reviews(rng, product.rating, min(8, product.reviews), PHRASES, 2024)),
        "questions": rows(write_questions(rng, rng.randint(2, 4), PHRASES, 2024)),
    }


def _facts(product_id: str, category: str) -> dict[str, Any]:
    """A product's article number, seller, delivery days and novelty (its own RNG)."""
    rng = random.Random(f"{SEED}-facts-{product_id}")
    return {
        "article": str(rng.randrange(10_000_000, 99_999_999)),
        "seller": rng.choice(TRADERS[category]),
        "delivery": rng.choice((0, 1, 1, 2, 3, 5)),
        "novelty": rng.random() < 0.2,
    }


def _pastel(rng: random.Random) -> str:
    r, g, b = colorsys.hls_to_rgb(rng.random(), rng.uniform(0.84, 0.9), rng.uniform(0.4, 0.65))
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (r, g, b)))


def build_catalog() -> CatalogData:
    """The whole catalog as plain JSON-ready data. Pure and deterministic."""
    rng = random.Random(SEED)
    products: list[Product] = []
    for n, row in enumerate(PRODUCTS, start=1):
        category, kind, brand, model, price, emoji, specs, showcase, old_price = row
        if brand not in BRANDS[category]:
            raise ValueError(f"{brand!r} is not a maker of {category!r}")
        products.append(
            Product(
                id=f"m-{n:03d}",
                title=f"{kind} «{brand}»{', ' if model[0].isdigit() else ' '}{model}",
                brand=brand,
                model=model,
                kind=kind,
                category=category,
                price=price,
                old_price=old_price or None,
                rating=round(rng.uniform(3.6, 4.9), 1),
                reviews=rng.randint(4, 2400),
                stock=rng.randint(3, 40),
                showcase=showcase,
                deal=bool(old_price),
                specs=tuple(specs.items()),
                description=DESCRIPTIONS[category],
                color=_pastel(rng),
                emoji=emoji,
                **_facts(f"m-{n:03d}", category),
            )
        )
    titles = [p.title.casefold() for p in products]
    if len(set(titles)) != len(titles):
        raise ValueError("duplicate product titles")
    return {
        "categories": rows(CATEGORIES),
        "brands": {k: list(v) for k, v in BRANDS.items()},
        "products": rows(products),
        "sellers": rows(SELLERS),
        "details": {p.id: _details(p) for p in products},
    }


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.market.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
