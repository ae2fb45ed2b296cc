"""Продукты' chrome (services/kit/chrome.py): a grocery delivery's utility bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="ООО «Свежая лавка»",
    screen="bench_grocery_info",
    columns=columns(
        (
            "Покупателям",
            (
                ("zone", "Зона доставки"),
                ("delivery", "Условия доставки"),
                ("payment-ways", "Оплата заказа"),
                ("quality", "Качество и свежесть"),
                ("returns", "Возврат и замена"),
            ),
        ),
        (
            "Сервис",
            (
                ("subscription", "Подписка на доставку"),
                ("promo", "Промокоды и скидки"),
                ("recipes", "Рецепты"),
                ("business", "Корпоративным клиентам"),
            ),
        ),
        (
            "Компания",
            (
                ("about", "О сервисе"),
                ("suppliers", "Поставщикам"),
                ("couriers", "Курьерам"),
                ("jobs", "Вакансии"),
                ("press", "Пресс-служба"),
            ),
        ),
        (
            "Правовая информация",
            (
                ("privacy", "Политика конфиденциальности"),
                ("terms", "Пользовательское соглашение"),
                ("promo-rules", "Правила акций"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-03-45, с 7 до 23",
        "hello@svezhaya-lavka.example",
        "Москва, улица Земляной Вал, 9",
    ),
    header=(
        Link("delivery-time", "Доставим за 60 минут"),
        Link("orders", "Мои заказы"),
        Link("support", "Чат поддержки"),
    ),
    regions=("Москва", "Московская область", "Санкт-Петербург", "Казань"),
)
