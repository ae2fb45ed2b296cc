"""What every page of a site shows around its content, as the real services have it: the
footer (its link columns, contacts, app badges and legal line), the header's widgets, and
the one information page that every link leading nowhere real opens (docs/sites.md,
"Chrome"). Each site declares its own `Chrome`; the shell draws it (kit/footer.html) and
the site's app serves its information pages (services/kit/siteapp.py), each writing the
chrome's screen.

No caption here may contain a name that a task's path looks for on the same page (Playwright
matches accessible names by substring): «Найти», «Показать», «Оформить», «Оплатить»,
«Войти», «Скачать», «Применить», «Вперёд», «Далее», «Удалить», «Обновить» and the catalog's
own section names are left to the controls that do them. `tests/services/kit/test_chrome.py`
holds every caption to that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Names the sites' own controls carry, which no chrome caption may contain.
RESERVED = (
    "найти",
    "показать",
    "оформить",
    "оплатить",
    "войти",
    "скачать",
    "применить",
    "вперёд",
    "далее",
    "удалить",
    "обновить",
    "упорядочить",
    "в корзину",
    "добавить",
)


@dataclass(frozen=True)
class Link:
    """A link of the chrome: `slug` names its information page (`/info/{slug}`)."""

    slug: str
    caption: str


@dataclass(frozen=True)
class Column:
    heading: str
    links: tuple[Link, ...]


def columns(*spec: tuple[str, tuple[tuple[str, str], ...]]) -> tuple[Column, ...]:
    """Footer columns from `(heading, ((slug, caption), …))` pairs."""
    return tuple(
        Column(heading, tuple(Link(slug, caption) for slug, caption in links))
        for heading, links in spec
    )


# The app badges every site's footer shows: each opens the information page about the app.
APPS = (
    Link("app-ios", "Приложение для iPhone"),
    Link("app-android", "Приложение для Android"),
    Link("app-huawei", "Приложение в AppGallery"),
)


@dataclass(frozen=True)
class Chrome:
    """One site's chrome: its company's name (the legal line), the information screen its
    `/info/{slug}` writes (`state_changed.new_state`), the footer's columns and contacts,
    the header's widget links, and what its information pages say."""

    company: str
    screen: str
    columns: tuple[Column, ...]
    contacts: tuple[str, ...]
    header: tuple[Link, ...] = ()
    # The region a shop delivers to, chosen in the header's non-modal list (the first is
    # preselected); none where the site has no region.
    regions: tuple[str, ...] = ()
    apps: tuple[Link, ...] = APPS
    # slug -> the paragraphs of its page; a page without its own says the generic text.
    texts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def links(self) -> list[Link]:
        """Every link the chrome draws, columns first."""
        return [
            *(link for column in self.columns for link in column.links),
            *self.header,
            *self.apps,
        ]

    def page(self, slug: str) -> Link | None:
        return next((link for link in self.links() if link.slug == slug), None)

    def text(self, slug: str) -> tuple[str, ...]:
        return self.texts.get(slug) or GENERIC


GENERIC = (
    "Этот раздел обновляется. Основные вопросы о заказах, оплате и возврате собраны в"
    " разделе помощи; если ответа там нет, напишите в поддержку — мы отвечаем круглосуточно.",
    "Условия, цены и сроки, указанные на страницах сервиса, действуют на дату просмотра.",
)
