"""Маркет's chrome (services/kit/chrome.py): a marketplace's utility bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="ООО «Торговая площадка»",
    screen="bench_catalog_info",
    columns=columns(
        (
            "Покупателям",
            (
                ("how-to-order", "Как сделать заказ"),
                ("payment-ways", "Способы оплаты"),
                ("delivery", "Доставка и пункты выдачи"),
                ("returns", "Возврат товара"),
                ("warranty", "Гарантия и сервис"),
                ("gift-cards", "Подарочные сертификаты"),
            ),
        ),
        (
            "Продавцам",
            (
                ("sell", "Продавать на площадке"),
                ("seller-rules", "Правила для продавцов"),
                ("fees", "Тарифы и комиссии"),
                ("seller-school", "Обучение продавцов"),
                ("ads", "Продвижение товаров"),
            ),
        ),
        (
            "Компания",
            (
                ("about", "О компании"),
                ("jobs", "Вакансии"),
                ("press", "Пресс-центр"),
                ("eco", "Экология и упаковка"),
                ("requisites", "Реквизиты"),
            ),
        ),
        (
            "Помощь",
            (
                ("support", "Центр поддержки"),
                ("faq", "Вопросы и ответы"),
                ("privacy", "Политика конфиденциальности"),
                ("terms", "Пользовательское соглашение"),
                ("report", "Сообщить о нарушении"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-01-23, бесплатно по России",
        "help@torg-ploshchadka.example",
        "Москва, Пресненская набережная, 10",
    ),
    header=(
        Link("pickup-points", "Пункты выдачи"),
        Link("orders", "Мои заказы"),
        Link("support", "Центр поддержки"),
    ),
    regions=("Москва", "Санкт-Петербург", "Казань", "Екатеринбург", "Новосибирск"),
)
